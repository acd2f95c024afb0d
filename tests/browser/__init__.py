"""The app in a real Chromium through Playwright (marker `browser`)."""
