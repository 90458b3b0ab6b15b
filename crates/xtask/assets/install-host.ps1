# MCP Relay: installs the host that runs your local (stdio) MCP servers, for you only.
#
#   powershell -ExecutionPolicy Bypass -File .\install-host.ps1 [EXTENSION_ID]
#   powershell -ExecutionPolicy Bypass -File .\install-host.ps1 -Uninstall
#
# Run it in the unzipped MCP Relay folder. The host program does the work
# (`relay-host install --copy`): it copies itself into %LOCALAPPDATA%\mcp-relay\bin and
# registers that copy under HKEY_CURRENT_USER for Chrome, Chromium, Edge and Brave.
# Nothing needs administrator rights.
param(
  [string]$ExtensionId = '@EXTENSION_ID@',
  [switch]$Uninstall
)
$ErrorActionPreference = 'Stop'

# The platform as the zip names it (Rust's names: windows, x86_64/aarch64).
$arch = if ($env:PROCESSOR_ARCHITECTURE -eq 'ARM64') { 'aarch64' } else { 'x86_64' }
$bin = Join-Path $PSScriptRoot "host\windows-$arch\relay-host.exe"
if (-not (Test-Path $bin)) {
  Write-Error "install-host.ps1: this zip has no host for windows-$arch"
  exit 1
}
# A downloaded file carries the Mark of the Web; the copy must run without asking.
Unblock-File -Path $bin

if ($Uninstall) {
  & $bin install --copy --uninstall
} else {
  & $bin install --copy --extension-id $ExtensionId
  if ($LASTEXITCODE -eq 0) {
    Write-Output "Done. Reopen the extension's side panel: local servers are ready to add."
  }
}
exit $LASTEXITCODE
