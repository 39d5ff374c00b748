#!/usr/bin/env bash
# Installs `workbench` so it runs from any folder with no environment variable: the release binary as
# PREFIX/bin/workbench, the backbone as PREFIX/share/workbench/efficientnet-lite0.safetensors and the person
# detector beside it (ssdlite-mobilenetv2-person.safetensors), where the binary looks for them. Builds first
# (incrementally: nothing to do when the binary is up to date), or runs scripts/setup.sh when the backbone or the
# detector is missing.
#
# Usage: scripts/install.sh [PREFIX]   (default: ~/.local for a normal user, /usr/local for root)
# INSTALL_BINARY=FILE installs FILE instead of building: the test suite passes the binary under test, because
# `swift test` holds the clone's build folder and a `swift build` started from inside it would wait forever.
# The binary carries the Swift runtime and Foundation (linked statically, see Package.swift), so it runs for a user
# without the toolchain on PATH or on the library path; it needs Debian's OpenBLAS, libpng and libjpeg.
set -euo pipefail

say() { printf 'install: %s\n' "$*" >&2; }

usage="usage: scripts/install.sh [PREFIX]   (default: ~/.local for a normal user, /usr/local for root; installs PREFIX/bin/workbench)"
# An option is never taken for a PREFIX (`--help` would otherwise install into ./--help/bin).
case "${1-}" in
    -h|--help) printf '%s\n' "$usage"; exit 0 ;;
    -*) say "unknown option $1"; say "$usage"; exit 2 ;;
esac
if [ $# -gt 1 ] || { [ $# -eq 1 ] && [ -z "$1" ]; }; then
    say "$usage"
    exit 2
fi
if [ $# -eq 1 ]; then
    prefix=$1
elif [ "$(id -u)" -eq 0 ]; then
    prefix=/usr/local
else
    prefix="$HOME/.local"
fi
case "$prefix" in
    /*) ;;
    *) prefix="$PWD/$prefix" ;;  # relative to where the user is, not to the clone
esac
given_binary=${INSTALL_BINARY:-}
case "$given_binary" in
    ""|/*) ;;
    *) given_binary="$PWD/$given_binary" ;;
esac
cd "$(dirname "$0")/.."

binary=.build/release/workbench
weights=models/efficientnet-lite0.safetensors
detector=models/ssdlite-mobilenetv2-person.safetensors
if [ ! -f "$weights" ] || [ ! -f "$detector" ]; then
    scripts/setup.sh  # fetches and converts the backbone and the person detector, and builds
fi
if [ -n "$given_binary" ]; then
    if [ ! -f "$given_binary" ] || [ ! -x "$given_binary" ]; then
        say "INSTALL_BINARY=$given_binary is not an executable file"
        exit 1
    fi
    binary=$given_binary
elif command -v swift >/dev/null && { [ ! -e .build ] || [ -O .build ]; }; then
    # Always through the build, so a pull since the last build is never installed stale; when nothing changed
    # swift build only checks (a few seconds).
    say "building $binary"
    if ! scripts/setup/build-release.sh; then
        say "release build failed (full log: .build/release-build.log)"
        exit 1
    fi
else
    # No swift on the PATH (sudo resets it) or .build belongs to another user (root installing a user's clone,
    # where a build would leave root-owned files behind): install the existing build only if no source is
    # newer than the last successful build (its stamp, see setup/build-release.sh; the binary itself when it is
    # newer, built by hand).
    if command -v swift >/dev/null; then
        why=".build belongs to $(stat -c %U .build), so this user does not build in it"
    else
        why="swift is not on the PATH"
    fi
    if [ ! -x "$binary" ]; then
        say "$binary is missing and $why: run scripts/setup.sh as the clone's owner first, then this again"
        exit 1
    fi
    built=.build/release-build-stamp
    if [ ! -f "$built" ] || [ "$binary" -nt "$built" ]; then built=$binary; fi
    newer=$(find Sources Package.swift -newer "$built" -type f -print -quit)
    if [ -n "$newer" ]; then
        say "$newer changed since $binary was built and $why: run scripts/setup.sh as the clone's owner first, then this again"
        exit 1
    fi
    say "$why: installing the existing $binary (no source changed since it was built)"
fi

# Each file is copied beside its destination and renamed over it, so a workbench that is running keeps its old
# file and a failed copy never leaves half a binary.
place() {
    local source=$1 destination=$2 mode=$3
    mkdir -p "$(dirname "$destination")"
    local temporary
    temporary=$(mktemp "$destination.XXXXXX")
    if ! cp "$source" "$temporary" || ! chmod "$mode" "$temporary" || ! mv -f "$temporary" "$destination"; then
        rm -f "$temporary"
        say "cannot write $destination"
        exit 1
    fi
}
place "$binary" "$prefix/bin/workbench" 755
place "$weights" "$prefix/share/workbench/efficientnet-lite0.safetensors" 644
place "$detector" "$prefix/share/workbench/ssdlite-mobilenetv2-person.safetensors" 644

version=$("$prefix/bin/workbench" --version)
say "installed workbench $version as $prefix/bin/workbench, its backbone and person detector in $prefix/share/workbench/"
case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *)
        if [ "$prefix" = "$HOME/.local" ] && grep -qs '\.local/bin' "$HOME/.profile"; then
            # Debian's ~/.profile puts ~/.local/bin on the PATH when it exists at login, and it did not until now.
            say "$prefix/bin is not on this shell's PATH yet; your ~/.profile adds it: log in again, or run  . ~/.profile"
        else
            say "$prefix/bin is not on your PATH; add it (for example in ~/.profile) and open a new shell:"
            printf '    export PATH="%s/bin:$PATH"\n' "$prefix" >&2
        fi
        ;;
esac
