// node:fs as it is, plus globSync where Node lacks it (Node < 22). Only
// `conformance tier-check` uses globSync, and mcpkit never runs it.
import fs from 'node:fs';

export * from 'node:fs';
export default fs;
export const globSync = fs.globSync ?? function globSync() {
  throw new Error('fs.globSync needs Node >= 22; it is only used by `conformance tier-check`');
};
