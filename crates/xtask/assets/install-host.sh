#!/bin/sh
# MCP Relay: installs the host that runs your local (stdio) MCP servers, for you only.
#
#   sh install-host.sh [EXTENSION_ID]    install (the id defaults to the released extension's)
#   sh install-host.sh --uninstall       remove it again
#
# Run it in the unzipped MCP Relay folder. The host program does the work
# (`relay-host install --copy`): it copies itself into your data folder and registers that copy
# with Chrome, Chromium, Edge and Brave. Nothing needs administrator rights.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
default_id='@EXTENSION_ID@'

# The platform as the zip names it (Rust's names: linux/macos, x86_64/aarch64).
case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=macos ;;
  *) echo "install-host.sh: $(uname -s) is not supported here; on Windows run install-host.ps1" >&2; exit 1 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x86_64 ;;
  arm64 | aarch64) arch=aarch64 ;;
  *) arch=$(uname -m) ;;
esac
bin="$here/host/$os-$arch/relay-host"
if [ ! -f "$bin" ]; then
  echo "install-host.sh: this zip has no host for $os-$arch (it has: $(ls "$here/host" 2>/dev/null | tr '\n' ' '))" >&2
  exit 1
fi
# An unzip tool may drop the executable bit, and macOS quarantines downloaded programs.
chmod +x "$bin"
if [ "$os" = macos ]; then xattr -d com.apple.quarantine "$bin" 2>/dev/null || true; fi

case "${1:-}" in
  --uninstall) exec "$bin" install --copy --uninstall ;;
  -h | --help) sed -n '2,9p' "$0"; exit 0 ;;
esac
id=${1:-$default_id}
"$bin" install --copy --extension-id "$id"
echo "Done. Reopen the extension's side panel: local servers are ready to add."
