// swift-tools-version:6.0
import PackageDescription

let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

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
        .target(name: "CCurlShim", dependencies: ["CCurl"], path: "Sources/CCurlShim"),
        .target(name: "CSystemShim", path: "Sources/CSystemShim"),
        .target(
            name: "AssetSync",
            dependencies: ["CCurl", "CCurlShim", "CSystemShim", "CLibXML2", "CZlib"],
            path: "Sources/AssetSync",
            swiftSettings: strict),
        .executableTarget(
            name: "assetsync", dependencies: ["AssetSync"], path: "Sources/assetsync",
            swiftSettings: strict),
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(
            name: "AssetSyncTests", dependencies: ["AssetSync", "CZlib", "TestSupport"],
            path: "Tests/AssetSyncTests", swiftSettings: strict),
        .testTarget(
            name: "IntegrationTests", dependencies: ["assetsync", "CZlib", "TestSupport"],
            path: "Tests/IntegrationTests", exclude: ["Golden"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
