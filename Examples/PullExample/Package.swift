// swift-tools-version:6.0
import PackageDescription

// A program that uses the AssetSync library as any other package would: through its product, from
// the checkout two directories up (`swift build --package-path Examples/PullExample`).
let package = Package(
    name: "PullExample",
    dependencies: [.package(name: "assetsync", path: "../..")],
    targets: [
        .executableTarget(
            name: "pull-example",
            dependencies: [.product(name: "AssetSync", package: "assetsync")]),
    ],
    swiftLanguageModes: [.v6]
)
