#!/usr/bin/env bash
# Installs everything Quarry builds and tests with, from Debian's apt repositories and the
# npm registry only. Idempotent: a second run installs nothing and takes seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config ccache
  # liblz4-dev: find_package(RocksDB) requires lz4 (RocksDB compresses column families with it).
  librocksdb-dev libbson-dev libmongoc-dev libsnappy-dev libzstd-dev zlib1g-dev liblz4-dev
  libboost-dev libcli11-dev libsimdjson-dev
  # net/ serves TLS through Asio's OpenSSL streams; its tests make certificates with `openssl`.
  libssl-dev openssl
  # net/'s io threads poll an io_uring's shared flags before they sleep.
  liburing-dev
  # quarry bench large-docs compares with Redis and client-side brotli, zlib and MessagePack.
  libbrotli-dev libmsgpack-dev libyaml-cpp-dev libgtest-dev libpcre2-dev libicu-dev
  # libssl-dev: SCRAM authentication (PBKDF2, HMAC, SHA-1/SHA-256) through OpenSSL.
  libssl-dev
  # text search stems words with Snowball's stemmers.
  libstemmer-dev
  # bench/indexes compares point reads with Redis through hiredis.
  libhiredis-dev redis-server
  # bench/vector compares vector search with hnswlib called directly.
  libhnswlib-dev
  # bench/ycsb compares YCSB's workloads with PostgreSQL's JSONB (a temporary cluster, libpq).
  postgresql libpq-dev
  clang libclang-rt-14-dev clang-format clang-tidy
  python3-pymongo python3-pymongo-ext python3-bson-ext python3-snappy python3-zstandard
  # Debian ships pymongo's gridfs module as its own package (tests/integration/gridfs).
  python3-gridfs
  python3-pytest
  chromium
)
# The machine image ships Node.js 20 and npm; Debian's own nodejs (18) is only a fallback.
command -v npm >/dev/null 2>&1 || APT_PACKAGES+=(nodejs npm)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "installing with apt-get: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Node packages for the tests, pinned by package-lock.json.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "installing npm packages (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi

# The semantic-search example pins its own LangChain.js stack and offline embedding model
# (about 150 MB); tests/integration/node/semantic_search_example.test.mjs runs it.
example=examples/semantic-search
if [ ! -d "$example/node_modules" ] || [ "$example/package-lock.json" -nt "$example/node_modules/.package-lock.json" ]; then
  echo "installing npm packages for $example (npm ci)"
  npm ci --prefix "$example" --no-audit --no-fund --loglevel=error
fi
