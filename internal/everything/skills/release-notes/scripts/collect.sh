#!/bin/sh
# Prints the subject of every commit since the last tag, oldest first.
set -eu
last=$(git describe --tags --abbrev=0 2>/dev/null || git rev-list --max-parents=0 HEAD)
git log --reverse --format='- %s' "$last"..HEAD
