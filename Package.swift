// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "assetsync",
    products: [
        .executable(name: "assetsync", targets: ["assetsync"]),
        .library(name: "AssetSync", targets: ["AssetSync"]),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(
            name: "CLibXML2", path: "Sources/CLibXML2", pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(
            name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(
            name: "CIsal", path: "Sources/CIsal", pkgConfig: "libisal",
            providers: [.apt(["libisal-dev"])]),
        .systemLibrary(
            name: "CLibCrypto", path: "Sources/CLibCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CSodium", path: "Sources/CSodium", pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]),
        .target(name: "CCurlShim", dependencies: ["CCurl"], path: "Sources/CCurlShim"),
        .target(name: "CSystemShim", path: "Sources/CSystemShim"),
        // The layers, each importing only those before it: a dependency against this
        // direction (model → system → manifest I/O, cache → transfer → pull → CLI) does not compile.
        /// The manifest, the plan, file results and the events a pull emits: pure Swift, no C.
        .target(name: "AssetSyncModel"),
        /// The one place for system calls: descriptors, atomic files, threads, the clock; and the
        /// CRC-32 (ISA-L, with zlib to combine) and SHA-256 (libcrypto) every layer above computes.
        .target(name: "AssetSyncSystem", dependencies: ["AssetSyncModel", "CSystemShim", "CIsal", "CZlib", "CLibCrypto"]),
        /// The XML and JSON manifest readers (libxml2, zlib) and the manifest writer.
        .target(name: "AssetSyncManifestIO", dependencies: ["AssetSyncModel", "AssetSyncSystem", "CLibXML2", "CZlib"]),
        /// Signed manifests in minisign's format: keys, signatures, trusted comments, the check of a
        /// manifest's bytes against trusted keys (libsodium's Ed25519 and BLAKE2b). Pure verification of bytes.
        .target(name: "AssetSyncTrust", dependencies: ["AssetSyncModel", "AssetSyncSystem", "CSodium"]),
        /// The cache directory: root, scanner, partial files, commit protocol, state index, lock. No HTTP.
        .target(name: "AssetSyncCache", dependencies: ["AssetSyncModel", "AssetSyncSystem"]),
        /// The only libcurl user: easy and multi handles, downloads into a sink, retries, redirects.
        .target(
            name: "AssetSyncTransfer",
            dependencies: ["AssetSyncModel", "AssetSyncSystem", "CCurl", "CCurlShim"]),
        /// One pull: plan → transfer → verify → commit → state index, emitting events to one sink.
        .target(
            name: "AssetSyncPull",
            dependencies: ["AssetSyncModel", "AssetSyncSystem", "AssetSyncManifestIO", "AssetSyncCache", "AssetSyncTransfer", "AssetSyncTrust"]),
        /// The public library: requests, pull / plan / verify, events, reports, one error; the
        /// process-wide set-up. Its public declarations are the whole API (`make api-check`).
        .target(
            name: "AssetSync",
            dependencies: [
                "AssetSyncModel", "AssetSyncSystem", "AssetSyncManifestIO", "AssetSyncCache", "AssetSyncTransfer", "AssetSyncTrust", "AssetSyncPull",
                "CCurl", "CZlib", "CIsal", "CLibCrypto", "CSodium",
            ]),
        /// The commands, renderers, help text and exit codes: the only code that knows a terminal,
        /// standard input, flags and signals. A client of the library: it reaches the layers only
        /// through `AssetSync` (its public API, its `package` side, and the model it re-exports).
        .target(name: "AssetSyncCLI", dependencies: ["AssetSync"]),
        .executableTarget(name: "assetsync", dependencies: ["AssetSyncCLI"]),
        .testTarget(
            name: "AssetSyncTests",
            dependencies: [
                "AssetSyncModel", "AssetSyncSystem", "AssetSyncManifestIO", "AssetSyncCache", "AssetSyncTransfer",
                "AssetSyncPull", "AssetSyncCLI", "AssetSyncTrust", "CCurl", "CCurlShim", "CZlib", "TestSupport",
            ],
            exclude: ["Fixtures"]),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "IntegrationTests", dependencies: ["assetsync", "AssetSync", "CZlib", "TestSupport"], exclude: ["Golden", "Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)

// Every target, tests included, in Swift 6 mode with the upcoming features that make
// dependencies explicit: `any` on existentials, members visible only through an import
// of their module, and imports internal unless declared `public`/`package`.
// The C targets (system libraries and shims) take no Swift settings.
for target in package.targets where target.type != .system && !target.name.hasPrefix("C") {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ]
}
