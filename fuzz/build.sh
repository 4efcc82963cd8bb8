#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/targets/ into .build/fuzz/bin/: the library modules through
# SwiftPM with coverage and the address sanitizer, then each target linked by swiftc (an executable
# target cannot be built by SwiftPM with -sanitize=fuzzer: see ../shared/PITFALLS.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=.build/fuzz
flags=(-Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address)
for target in AssetSyncManifestIO AssetSyncCache AssetSyncTransfer; do
    swift build --build-path "$out" "${flags[@]}" --target "$target" 2>&1 | grep -E "error|warning:" || true
done
debug=$out/debug
modules=()
for m in AssetSyncModel AssetSyncSystem AssetSyncManifestIO AssetSyncCache AssetSyncTransfer CSystemShim CCurlShim; do
    modules+=("$debug/$m.build"/*.o)
done
maps=()
for map in "$debug"/CSystemShim.build/module.modulemap "$debug"/CCurlShim.build/module.modulemap \
    Sources/CLibXML2/module.modulemap Sources/CZlib/module.modulemap Sources/CIsal/module.modulemap Sources/CCurl/module.modulemap \
    Sources/CLibCrypto/module.modulemap; do
    maps+=(-Xcc "-fmodule-map-file=$PWD/$map")
done
# The targets use the modules' package declarations: they must be of the same package, which SwiftPM
# names after the checkout's directory (lowercased, other characters as "_").
package=$(basename "$PWD" | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9_]/_/g; s/^[0-9]/_&/')
mkdir -p "$out/bin"
for source in fuzz/targets/*.swift; do
    name=$(basename "$source" .swift)
    swiftc -sanitize=fuzzer,address -parse-as-library -enable-testing -package-name "$package" -I "$debug/Modules" \
        "${maps[@]}" -Xcc -I"$PWD/Sources/CSystemShim/include" -Xcc -I"$PWD/Sources/CCurlShim/include" \
        -Xcc -I/usr/include/libxml2 \
        "$source" "${modules[@]}" -lxml2 -lz -lisal -lcurl -lcrypto -o "$out/bin/fuzz-$name" 2>&1 \
        | grep -v "Cannot export local symbol" || true
    [[ -x $out/bin/fuzz-$name ]] || { echo "error: fuzz-$name did not link" >&2; exit 1; }
done
ls "$out/bin"
