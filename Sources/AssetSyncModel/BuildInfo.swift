/// The version of assetsync.
public enum BuildInfo {
    public static let version = "0.1.0"
}
