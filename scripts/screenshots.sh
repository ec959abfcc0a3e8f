#!/usr/bin/env bash
# Refreshes docs/screenshots/: the example catalog's site (`flowmcp catalog site`) as a browser
# shows it, in the light and the dark theme: the index, a tool page and a schema file's page (its
# validation findings and tests). Needs Node, Debian's chromium and a node_modules with
# puppeteer-core and axe-core, named by FLOWMCP_SITE_MODULES (`.ci/run` installs them; or
# `npm install --prefix DIR puppeteer-core axe-core`, then FLOWMCP_SITE_MODULES=DIR/node_modules).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${FLOWMCP_SITE_MODULES:?set FLOWMCP_SITE_MODULES to a node_modules with puppeteer-core and axe-core}"
site=target/screenshot-site
cargo run -q -p flowmcp-cli -- catalog site examples/catalog --out "$site" --rules docs/rules
cargo run -q -p flowmcp-cli -- validate examples/catalog --format html > "$site/validate-report.html"
node scripts/site-browser.mjs screenshots docs/screenshots \
  "index=$site/index.html" \
  "tool=$site/t-holidaykit-net_tool_getPublicHolidays.html" \
  "schema=$site/s-providers_holidaykit-net_public-holidays_mjs.html" \
  "report=$site/validate-report.html"
