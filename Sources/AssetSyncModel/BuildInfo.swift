/// The version of assetsync.
package enum BuildInfo {
    package static let version = "0.1.0"
}
