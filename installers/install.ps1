# Herald's staged installer for Windows (PowerShell 5.1 or 7). installers/README.md tells the whole story.
#
#   .\install.ps1                          # every stage in order (a full install)
#   .\install.ps1 -Manifest                # the stage list as one JSON object
#   .\install.ps1 -Stage repository -Json  # one stage; exactly one JSON frame on stdout
#
# The same protocol as install.sh: two modes (a git checkout pinned by -Commit over -Tag over
# -Branch, or release binaries from -ReleaseUrl verified against SHA256SUMS), one frame per stage,
# diagnostics on stderr, per-install state in $InstallDir\.install-state.

[CmdletBinding()]
param(
  [switch]$Manifest,
  [string]$Stage,
  [switch]$Json,
  [switch]$NonInteractive,
  [string]$Commit = '',
  [string]$Tag = '',
  [string]$Branch = '',
  [string]$ReleaseUrl = $env:HERALD_RELEASE_URL,
  [switch]$IncludeDesktop,
  [switch]$NoSkills,
  [string]$InstallDir = '',
  [string]$HeraldHome = '',
  [switch]$Help
)

$ErrorActionPreference = 'Stop'
$ProtocolVersion = 1
$DenoVersion = '2.9.6'
$MarkerName = '.herald-bootstrap-complete'

# BEGIN GENERATED STAGES (from installers/stages.tsv: deno run -A installers/stages.ts --write)
$StageList = @(
  [ordered]@{ name = 'prerequisites'; title = 'System prerequisites'; category = 'runtime'; needsInput = $false; needs = @(); when = 'always' }
  [ordered]@{ name = 'repository'; title = 'Download Herald'; category = 'runtime'; needsInput = $false; needs = @('prerequisites'); when = 'always' }
  [ordered]@{ name = 'venv'; title = 'Python virtual environment (not needed)'; category = 'runtime'; needsInput = $false; needs = @(); when = 'always' }
  [ordered]@{ name = 'python-deps'; title = 'Python dependencies (not needed)'; category = 'runtime'; needsInput = $false; needs = @(); when = 'always' }
  [ordered]@{ name = 'node-deps'; title = 'Install npm dependencies'; category = 'runtime'; needsInput = $false; needs = @('repository'); when = 'always' }
  [ordered]@{ name = 'path'; title = 'Install the herald command'; category = 'runtime'; needsInput = $false; needs = @('node-deps'); when = 'always' }
  [ordered]@{ name = 'config'; title = 'Prepare the Herald home and skills'; category = 'configuration'; needsInput = $false; needs = @('path'); when = 'always' }
  [ordered]@{ name = 'setup'; title = 'Configure the model provider'; category = 'configuration'; needsInput = $true; needs = @('config'); when = 'always' }
  [ordered]@{ name = 'gateway'; title = 'Configure the gateway service'; category = 'configuration'; needsInput = $true; needs = @('config'); when = 'always' }
  [ordered]@{ name = 'desktop'; title = 'Desktop app'; category = 'runtime'; needsInput = $false; needs = @('repository'); when = 'desktop' }
  [ordered]@{ name = 'complete'; title = 'Finish install'; category = 'runtime'; needsInput = $false; needs = @('config'); when = 'always' }
)
# END GENERATED STAGES

# --- layout -----------------------------------------------------------------------------------

# Usage errors found before any stage runs (a frame with exit code 2 in -Stage mode).
$ArgError = ''
if ($Commit -and ($Commit -cnotmatch '^[0-9a-f]{7,40}$')) { $ArgError = "-Commit ""$Commit"" is not a commit hash (7 to 40 of 0-9a-f)" }

# Whether $Name is a ref name git accepts as a branch (never one that reads as an option).
function Test-RefName([string]$Name) {
  if (-not $Name -or $Name.StartsWith('-')) { return $false }
  if (Get-Command git -ErrorAction SilentlyContinue) {
    $ErrorActionPreference = 'Continue'
    & git check-ref-format --branch $Name 2>$null | Out-Null
    if ($LASTEXITCODE -ne 0) { return $false }
  }
  return $true
}
if (-not $ArgError -and $Tag -and -not (Test-RefName $Tag)) { $ArgError = "-Tag ""$Tag"" is not a valid tag name" }
if (-not $ArgError -and $Branch -and -not (Test-RefName $Branch)) { $ArgError = "-Branch ""$Branch"" is not a valid branch name" }

$UserHome = if ($env:HOME) { $env:HOME } else { $env:USERPROFILE }
if (-not $UserHome -and (-not ($HeraldHome -or $env:HERALD_HOME) -or -not ($env:HERALD_BIN_DIR -or $env:LOCALAPPDATA))) {
  if (-not $ArgError) { $ArgError = 'neither HOME nor USERPROFILE is set; set one, or set HERALD_HOME and HERALD_BIN_DIR' }
}
$HomeBase = if ($UserHome) { $UserHome } else { '.' } # only used when $ArgError stops the run
if (-not $HeraldHome) { $HeraldHome = if ($env:HERALD_HOME) { $env:HERALD_HOME } else { Join-Path $HomeBase '.herald' } }
if (-not $InstallDir) { $InstallDir = if ($env:HERALD_INSTALL_DIR) { $env:HERALD_INSTALL_DIR } else { Join-Path $HeraldHome 'herald-agent' } }
$BinDir = if ($env:HERALD_BIN_DIR) { $env:HERALD_BIN_DIR } elseif ($env:LOCALAPPDATA) { Join-Path $env:LOCALAPPDATA 'herald\bin' } else { Join-Path $HomeBase '.local/bin' }
# Absolute from here on (a stage changes folder); relative to the folder the installer started in.
function Get-AbsolutePath([string]$Path) { [IO.Path]::GetFullPath([IO.Path]::Combine((Get-Location).ProviderPath, $Path)) }
$HeraldHome = Get-AbsolutePath $HeraldHome
$InstallDir = Get-AbsolutePath $InstallDir
$BinDir = Get-AbsolutePath $BinDir
$StateDir = Join-Path $InstallDir '.install-state'
$env:HERALD_HOME = $HeraldHome

$ScriptCheckout = ''
if ($PSScriptRoot) {
  $parent = Split-Path -Parent $PSScriptRoot
  if ((Test-Path (Join-Path $parent 'cli/main.ts')) -and (Test-Path (Join-Path $parent '.git'))) { $ScriptCheckout = $parent }
}

function Say([string]$Text) { [Console]::Error.WriteLine("herald install: $Text") }

class StageSkip : System.Exception { StageSkip([string]$m) : base($m) {} }
class StageFail : System.Exception { StageFail([string]$m) : base($m) {} }

function Fail([string]$Reason) { throw [StageFail]::new($Reason) }
function Skip([string]$Reason) { throw [StageSkip]::new($Reason) }

$script:Details = [ordered]@{}
function Detail([string]$Key, $Value) { $script:Details[$Key] = $Value }

function Get-State([string]$Key) {
  $file = Join-Path $StateDir $Key
  if (Test-Path $file) { return (Get-Content -Raw $file).Trim() }
  return ''
}

function Set-State([string]$Key, [string]$Value) {
  New-Item -ItemType Directory -Force -Path $StateDir | Out-Null
  $file = Join-Path $StateDir $Key
  [IO.File]::WriteAllText("$file.tmp", "$Value`n", [Text.UTF8Encoding]::new($false))
  Move-Item -Force "$file.tmp" $file
}

function Test-Command([string]$Name) { [bool](Get-Command $Name -ErrorAction SilentlyContinue) }

function Get-InstallMode {
  $mode = Get-State 'mode'
  if ($mode) { return $mode }
  if ($ReleaseUrl) { return 'binary' }
  return 'git'
}

# Runs a native command with its output on stderr; fails the stage with $What when it exits non-zero.
function Invoke-Native([string]$What, [scriptblock]$Block) {
  $ErrorActionPreference = 'Continue' # Windows PowerShell turns a native command's stderr into errors
  & $Block 2>&1 | ForEach-Object { [Console]::Error.WriteLine("$_") }
  if ($LASTEXITCODE -ne 0) { Fail "$What (exit code $LASTEXITCODE)" }
}

function Get-HeraldCommand {
  $cmd = Get-State 'herald'
  if (-not $cmd -or -not (Test-Path $cmd)) { Fail 'no herald command is installed; run the "path" stage first' }
  return $cmd
}

function Get-ReleaseAsset {
  $arch = $env:PROCESSOR_ARCHITECTURE
  if ($arch -eq 'AMD64' -or $arch -eq 'x86_64') { return 'herald-windows-x86_64.exe' }
  Fail "no Herald release binary for Windows on $arch; install from a git checkout instead"
}

# Refuses a release URL that is neither https nor plain http to this machine (tests serve there).
function Assert-ReleaseUrl([string]$Url) {
  if ($Url -match '^https://') { return }
  if ($Url -match '^http://(127\.[0-9.]+|localhost|\[::1\])(:[0-9]+)?(/|$)') { return }
  Fail "the release URL $Url is not https; only https (or http to 127.0.0.1) is accepted"
}

function Get-ListedSum([string]$Name, [string]$SumsFile) {
  foreach ($line in Get-Content $SumsFile) {
    $parts = $line -split '\s+', 2
    if ($parts.Count -eq 2 -and ($parts[1] -eq $Name -or $parts[1] -eq "*$Name")) { return $parts[0].ToLower() }
  }
  return ''
}

# --- the stages -------------------------------------------------------------------------------

function Stage-Prerequisites {
  New-Item -ItemType Directory -Force -Path $StateDir | Out-Null
  if ($ReleaseUrl) {
    Assert-ReleaseUrl $ReleaseUrl
    Set-State 'mode' 'binary'
    Set-State 'release-url' $ReleaseUrl
    Detail 'mode' 'binary'
    return
  }
  if (-not (Test-Command 'git')) { Fail 'git is not installed; install Git for Windows (or use -ReleaseUrl for release binaries)' }
  $deno = ''
  if ($env:HERALD_DENO) { $deno = $env:HERALD_DENO }
  elseif ((Test-Command 'deno') -and ((& deno --version | Select-Object -First 1) -like "deno $DenoVersion *")) { $deno = (Get-Command deno).Source }
  elseif (Test-Command 'npx') {
    Say "fetching Deno $DenoVersion with npx"
    $deno = (& npx -y "deno@$DenoVersion" eval 'console.log(Deno.execPath())' | Select-Object -Last 1)
  }
  if (-not $deno -or -not (Test-Path $deno)) { Fail "Deno $DenoVersion is needed: install Node.js (npx fetches it) or put deno $DenoVersion on the PATH" }
  Set-State 'mode' 'git'
  Set-State 'deno' $deno
  Detail 'mode' 'git'
  Detail 'deno' $deno
}

function Repository-Git {
  $ErrorActionPreference = 'Continue'
  $url = if ($env:HERALD_REPO_URL) { $env:HERALD_REPO_URL } else { Get-State 'repo-url' }
  if (-not $url) { $url = $ScriptCheckout }
  if (-not $url) { Fail 'set HERALD_REPO_URL to the Herald git repository, or pass -ReleaseUrl for release binaries' }
  if ($url.StartsWith('-')) { Fail "the repository URL $url starts with ""-""; give a URL or an absolute path" }
  Set-Location $InstallDir
  if (-not (Test-Path '.git')) {
    $others = @(Get-ChildItem -Force | Where-Object { @('.install-state', '.herald-bootstrap-failed', '.herald-bootstrap.lock') -notcontains $_.Name })
    if ($others.Count -gt 0) { Fail "$InstallDir holds files but no git checkout; move them away or choose another HERALD_INSTALL_DIR" }
    Invoke-Native 'git init failed' { git init -q }
    Invoke-Native 'git remote add failed' { git remote add -- origin $url }
  } else {
    $current = (& git remote get-url origin 2>$null)
    if ($current -ne $url) {
      & git remote remove origin 2>$null
      Invoke-Native 'git remote add failed' { git remote add -- origin $url }
    }
  }
  Set-State 'repo-url' $url
  $exclude = '.git/info/exclude'
  New-Item -ItemType Directory -Force -Path '.git/info' | Out-Null
  $lines = if (Test-Path $exclude) { @(Get-Content $exclude) } else { @() }
  foreach ($entry in @('/.install-state/', "/$MarkerName", '/.install_method', '/.herald-bootstrap-failed', '/.herald-bootstrap.lock')) {
    if ($lines -notcontains $entry) { Add-Content -Path $exclude -Value $entry }
  }
  Say "fetching $url"
  Invoke-Native "git fetch from $url failed" { git fetch -q --tags --force origin '+refs/heads/*:refs/remotes/origin/*' }
  $default = ''
  foreach ($line in (& git ls-remote --symref origin HEAD 2>$null)) {
    if ($line -match '^ref: refs/heads/(.+)\s+HEAD$') { $default = $Matches[1] }
  }
  $pinBranch = if ($Branch) { $Branch } elseif ($default) { $default } else { 'main' }
  if (-not (Test-RefName $pinBranch)) { Fail "the remote's default branch ""$pinBranch"" is not a valid branch name; pass -Branch" }
  if ($Commit) {
    & git cat-file -e "$Commit^{commit}" 2>$null
    if ($LASTEXITCODE -ne 0) { & git fetch -q -- origin $Commit 2>$null }
    $target = (& git rev-parse -q --verify "$Commit^{commit}")
    if ($LASTEXITCODE -ne 0) { Fail "commit $Commit is not in $url" }
    Invoke-Native "git checkout of $target failed (local changes in $InstallDir?)" { git checkout -q --detach $target }
    Detail 'pin' 'commit'
  } elseif ($Tag) {
    $target = (& git rev-parse -q --verify "refs/tags/$Tag^{commit}")
    if ($LASTEXITCODE -ne 0) { Fail "tag $Tag is not in $url" }
    Invoke-Native "git checkout of tag $Tag failed (local changes in $InstallDir?)" { git checkout -q --detach $target }
    Detail 'pin' 'tag'
    Detail 'tag' $Tag
  } else {
    & git rev-parse -q --verify "refs/remotes/origin/$pinBranch" | Out-Null
    if ($LASTEXITCODE -ne 0) { Fail "branch $pinBranch is not in $url" }
    Invoke-Native "git checkout of branch $pinBranch failed (local changes in $InstallDir?)" { git checkout -q -B $pinBranch "refs/remotes/origin/$pinBranch" -- }
    Detail 'pin' 'branch'
  }
  $head = (& git rev-parse HEAD)
  Set-State 'pinned-commit' $head
  Set-State 'pinned-branch' $pinBranch
  Detail 'commit' $head
  Detail 'branch' $pinBranch
}

function Repository-Binary {
  $base = if ($ReleaseUrl) { $ReleaseUrl } else { Get-State 'release-url' }
  if (-not $base) { Fail 'no release URL; pass -ReleaseUrl <base> to the prerequisites stage' }
  $base = $base.TrimEnd('/')
  Assert-ReleaseUrl $base
  $asset = Get-ReleaseAsset
  $work = Join-Path $StateDir 'download'
  if (Test-Path $work) { Remove-Item -Recurse -Force $work }
  New-Item -ItemType Directory -Force -Path $work | Out-Null
  Say "downloading $base/$asset"
  foreach ($file in @('SHA256SUMS', $asset, 'install-stamp.json')) {
    # PowerShell 7 refuses an https-to-http redirect on its own; 5.1 only follows https ones here.
    try { Invoke-WebRequest -UseBasicParsing -Uri "$base/$file" -OutFile (Join-Path $work $file) }
    catch { Fail "cannot download $base/${file}: $($_.Exception.Message)" }
  }
  foreach ($file in @($asset, 'install-stamp.json')) {
    $expected = Get-ListedSum $file (Join-Path $work 'SHA256SUMS')
    if (-not $expected) { Remove-Item -Recurse -Force $work; Fail "SHA256SUMS at $base does not list $file; refusing to install an unverified file" }
    $actual = (Get-FileHash -Algorithm SHA256 (Join-Path $work $file)).Hash.ToLower()
    if ($expected -ne $actual) { Remove-Item -Recurse -Force $work; Fail "checksum mismatch for ${file}: SHA256SUMS says $expected, the download is $actual; refusing to install it" }
  }
  $stamp = Get-Content -Raw (Join-Path $work 'install-stamp.json') | ConvertFrom-Json
  $stampCommit = [string]$stamp.commit
  if ($stampCommit.Length -lt 7) { Fail "the release's install-stamp.json names no commit" }
  if ($Commit -and -not $stampCommit.StartsWith($Commit)) { Fail "the release at $base is commit $stampCommit, not the pinned $Commit" }
  Invoke-Native "the downloaded $asset does not run on this machine" { & (Join-Path $work $asset) --version }
  $binHome = Join-Path $InstallDir 'bin'
  New-Item -ItemType Directory -Force -Path $binHome | Out-Null
  Move-Item -Force (Join-Path $work $asset) (Join-Path $binHome 'herald.exe')
  Move-Item -Force (Join-Path $work 'install-stamp.json') (Join-Path $InstallDir 'install-stamp.json')
  Remove-Item -Recurse -Force $work
  $pinBranch = if ($Branch) { $Branch } elseif ($stamp.branch) { [string]$stamp.branch } else { 'main' }
  Set-State 'pinned-commit' $stampCommit
  Set-State 'pinned-branch' $pinBranch
  Detail 'asset' $asset
  Detail 'commit' $stampCommit
  Detail 'branch' $pinBranch
}

function Stage-Repository {
  if ((Get-InstallMode) -eq 'binary') { Repository-Binary } else { Repository-Git }
  Detail 'mode' (Get-InstallMode)
}

function Stage-Venv { Skip 'Herald needs no Python' }

function Stage-PythonDeps { Skip 'Herald needs no Python' }

function Stage-NodeDeps {
  if ((Get-InstallMode) -eq 'binary') { Skip 'a release binary carries its dependencies' }
  $deno = Get-State 'deno'
  if (-not $deno) { Fail 'no Deno recorded; run the "prerequisites" stage first' }
  Set-Location $InstallDir
  $env:DENO_NO_UPDATE_CHECK = '1'
  Invoke-Native "deno install failed in $InstallDir (see the lines above)" { & $deno install --frozen }
}

function Stage-Path {
  New-Item -ItemType Directory -Force -Path $BinDir | Out-Null
  if ((Get-InstallMode) -eq 'binary') {
    $target = Join-Path $InstallDir 'bin\herald.exe'
    if (-not (Test-Path $target)) { Fail "$target is missing; run the ""repository"" stage first" }
    $command = Join-Path $BinDir 'herald.exe'
    $existing = Get-Item -Force -ErrorAction SilentlyContinue $command
    if ($existing -and $existing.LinkType) {
      $points = [string]($existing.Target | Select-Object -First 1)
      if (-not [IO.Path]::IsPathRooted($points)) { $points = Join-Path $BinDir $points }
      $points = [IO.Path]::GetFullPath($points)
      if (-not $points.StartsWith($InstallDir.TrimEnd('\', '/') + [IO.Path]::DirectorySeparatorChar, [StringComparison]::OrdinalIgnoreCase)) {
        Fail "$command is a link to $points, not into $InstallDir; move it away or set HERALD_BIN_DIR to another folder"
      }
      Remove-Item -Force $command
    }
    Copy-Item -Force $target $command
  } else {
    $deno = Get-State 'deno'
    if (-not $deno) { Fail 'no Deno recorded; run the "prerequisites" stage first' }
    $command = Join-Path $BinDir 'herald.cmd'
    $text = "@echo off`r`nrem herald-launcher: herald`r`nset DENO_NO_UPDATE_CHECK=1`r`n" +
      """$deno"" run --allow-all --config ""$InstallDir\deno.json"" ""$InstallDir\cli\main.ts"" %*`r`n"
    [IO.File]::WriteAllText($command, $text, [Text.UTF8Encoding]::new($false))
  }
  Set-State 'herald' $command
  Detail 'bin' $command
  $userPath = [Environment]::GetEnvironmentVariable('Path', 'User')
  $onPath = ($env:Path -split ';') -contains $BinDir
  if (-not $onPath -and -not (($userPath -split ';') -contains $BinDir)) {
    [Environment]::SetEnvironmentVariable('Path', (@($userPath, $BinDir) -ne '' -join ';'), 'User')
    Say "added $BinDir to your user PATH; open a new terminal to use herald"
  }
  Detail 'onPath' $onPath
}

function Stage-Config {
  $herald = Get-HeraldCommand
  New-Item -ItemType Directory -Force -Path $HeraldHome | Out-Null
  if ($NoSkills) {
    $marker = Join-Path $HeraldHome '.no-bundled-skills'
    if (-not (Test-Path $marker)) { New-Item -ItemType File -Path $marker | Out-Null }
    Detail 'skills' 'not seeded (.no-bundled-skills)'
  }
  Detail 'config' $(if (Test-Path (Join-Path $HeraldHome 'config.yaml')) { 'kept' } else { 'none' })
  Invoke-Native "herald could not prepare its home $HeraldHome (see the lines above)" { & $herald skills list | Out-Null }
  Detail 'home' $HeraldHome
}

function Test-CanAsk { return (-not $NonInteractive) -and [Environment]::UserInteractive -and -not [Console]::IsInputRedirected }

function Stage-Setup {
  if ($NonInteractive) { Skip 'non-interactive: run `herald setup` to choose a model provider' }
  if (-not (Test-CanAsk)) { Skip 'no terminal to ask on: run `herald setup` to choose a model provider' }
  $herald = Get-HeraldCommand
  & $herald setup
  if ($LASTEXITCODE -ne 0) { Fail 'herald setup did not finish; run `herald setup` again' }
}

function Stage-Gateway {
  if ($NonInteractive) { Skip 'non-interactive: run `herald gateway install` to run the gateway as a service' }
  if (-not (Test-CanAsk)) { Skip 'no terminal to ask on: run `herald gateway install` to run the gateway as a service' }
  $herald = Get-HeraldCommand
  $answer = Read-Host 'Run the messaging gateway as a background service now? [y/N]'
  if ($answer -notmatch '^(y|yes)$') { Skip 'not now: run `herald gateway install` later' }
  Invoke-Native 'herald gateway install failed (see the lines above)' { & $herald gateway install }
  Invoke-Native 'herald gateway start failed (see the lines above)' { & $herald gateway start }
}

function Stage-Desktop { Skip 'Herald has no desktop app to build yet; the dashboard is `herald dashboard`' }

# Writes the bootstrap-complete marker. (`herald bootstrap-marker write` takes this over later.)
function Stage-Complete {
  if (-not (Test-Path $InstallDir)) { Fail "$InstallDir is missing; run the ""repository"" stage first" }
  $mode = Get-InstallMode
  $head = if ($mode -eq 'git') { (& git -C $InstallDir rev-parse HEAD 2>$null) } else { Get-State 'pinned-commit' }
  if (-not $head -or $head.Length -lt 7) { Fail 'cannot tell which commit is installed; run the "repository" stage again' }
  $pinBranch = Get-State 'pinned-branch'
  if (-not $pinBranch) { $pinBranch = 'main' }
  $marker = Join-Path $InstallDir $MarkerName
  $body = [ordered]@{
    schemaVersion = 1
    pinnedCommit = [string]$head
    pinnedBranch = $pinBranch
    completedAt = (Get-Date).ToUniversalTime().ToString("yyyy-MM-dd'T'HH:mm:ss.000'Z'")
  } | ConvertTo-Json -Compress
  [IO.File]::WriteAllText("$marker.tmp", "$body`n", [Text.UTF8Encoding]::new($false))
  Move-Item -Force "$marker.tmp" $marker
  [IO.File]::WriteAllText((Join-Path $InstallDir '.install_method'), "$mode`n", [Text.UTF8Encoding]::new($false))
  Detail 'marker' $marker
  Detail 'commit' ([string]$head)
  Detail 'branch' $pinBranch
}

$StageFunctions = @{
  'prerequisites' = 'Stage-Prerequisites'; 'repository' = 'Stage-Repository'; 'venv' = 'Stage-Venv'
  'python-deps' = 'Stage-PythonDeps'; 'node-deps' = 'Stage-NodeDeps'; 'path' = 'Stage-Path'
  'config' = 'Stage-Config'; 'setup' = 'Stage-Setup'; 'gateway' = 'Stage-Gateway'
  'desktop' = 'Stage-Desktop'; 'complete' = 'Stage-Complete'
}

# --- running a stage --------------------------------------------------------------------------

function Send-Frame([bool]$Ok, [string]$Name, [bool]$Skipped, [string]$Reason) {
  $frame = [ordered]@{ ok = $Ok; stage = $Name; skipped = $Skipped; reason = $(if ($Reason) { $Reason } else { $null }) }
  foreach ($key in $script:Details.Keys) { $frame[$key] = $script:Details[$key] }
  [Console]::Out.WriteLine(($frame | ConvertTo-Json -Compress))
}

# Runs one stage; prints its frame when $Frame is set. Returns $true when it succeeded or was skipped.
function Invoke-Stage([string]$Name, [bool]$Frame) {
  $script:Details = [ordered]@{}
  $entry = $StageList | Where-Object { $_.name -eq $Name } | Select-Object -First 1
  foreach ($need in $entry.needs) {
    if (-not (Test-Path (Join-Path $StateDir "$need.done"))) {
      Detail 'needs' $need
      $reason = "the ""$need"" stage must run first (""$Name"" needs it)"
      Say $reason
      if ($Frame) { Send-Frame $false $Name $false $reason }
      return $false
    }
  }
  $here = Get-Location
  $skipped = ''
  $failed = ''
  try {
    & $StageFunctions[$Name] | ForEach-Object { [Console]::Error.WriteLine("$_") }
  } catch [StageSkip] {
    $skipped = $_.Exception.Message
    Say "skipped: $skipped"
  } catch [StageFail] {
    $failed = $_.Exception.Message
    Say $failed
  } catch {
    $failed = "$($_.Exception.Message)"
    Say $failed
  } finally {
    Set-Location $here
  }
  $done = Join-Path $StateDir "$Name.done"
  if ($failed) {
    if (Test-Path $done) { Remove-Item -Force $done }
    if ($Frame) { Send-Frame $false $Name $false $failed }
    return $false
  }
  New-Item -ItemType Directory -Force -Path $StateDir | Out-Null
  [IO.File]::WriteAllText($done, (Get-Date).ToUniversalTime().ToString('o'))
  if ($Frame) { Send-Frame $true $Name ([bool]$skipped) $skipped }
  return $true
}

function Get-IncludedStages {
  return @($StageList | Where-Object { $_.when -eq 'always' -or ($_.when -eq 'desktop' -and $IncludeDesktop) })
}

# --- dispatch: -Manifest, then -Stage, then a full install ------------------------------------

if ($Help) {
  Get-Content $PSCommandPath | Select-Object -First 9 | ForEach-Object { $_ -replace '^# ?', '' }
  exit 0
}

if ($Manifest) {
  $stages = @(Get-IncludedStages | ForEach-Object {
      [ordered]@{ name = $_.name; title = $_.title; category = $_.category; needsInput = $_.needsInput }
    })
  [Console]::Out.WriteLine(([ordered]@{ protocolVersion = $ProtocolVersion; stages = $stages } | ConvertTo-Json -Compress -Depth 4))
  exit 0
}

if ($PSBoundParameters.ContainsKey('Stage')) {
  $names = ($StageList | ForEach-Object { $_.name }) -join ' '
  if ($ArgError) {
    Say $ArgError
    Send-Frame $false $Stage $false $ArgError
    exit 2
  }
  if (-not $Stage) {
    Say 'missing stage name'
    Send-Frame $false '' $false "missing stage name; stages: $names"
    exit 2
  }
  if (-not $StageFunctions.ContainsKey($Stage)) {
    Say "unknown stage: $Stage"
    Send-Frame $false $Stage $false "unknown stage ""$Stage""; stages: $names"
    exit 2
  }
  try {
    $ok = Invoke-Stage $Stage $true
  } catch {
    Send-Frame $false $Stage $false "$($_.Exception.Message)"
    exit 1
  }
  if ($ok) { exit 0 } else { exit 1 }
}

if ($ArgError) {
  Say $ArgError
  exit 2
}

$included = Get-IncludedStages
$index = 0
foreach ($entry in $included) {
  $index++
  Say "[$index/$($included.Count)] $($entry.title)"
  if (-not (Invoke-Stage $entry.name ([bool]$Json))) {
    Say "the ""$($entry.name)"" stage failed; fix what it says, then run: .\install.ps1 -Stage $($entry.name)"
    exit 1
  }
}
Say "done: run herald (or $BinDir\herald)"
exit 0
