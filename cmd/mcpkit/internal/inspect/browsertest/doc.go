// Package browsertest tests the page of `mcpkit inspect` in headless
// Chromium, driven with chromedp, against the reference server over stdio
// and over HTTP, in both eras. It is a module of its own so that neither
// the core module nor the CLI's requires chromedp; scripts/browsertest.sh
// runs it.
package browsertest
