import Foundation

/// An XFS image with reflinks, mounted on a loop device for one test: where assetsync clones files
/// (local reuse, generations) rather than copying or hard-linking them. Unmounted and removed when released.
public final class ReflinkDisk {
    /// Whether this machine can make one: mounting needs root, and the image needs xfsprogs.
    public static let canMount = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/mkfs.xfs")
    /// Why a test that needs one is skipped where `canMount` is false.
    public static let requirement = "needs root and mkfs.xfs (xfsprogs) to mount an XFS image with reflinks"

    /// Where the file system is mounted.
    public let path: String
    private let image: String

    public init(megabytes: Int) throws {
        let directory = try TemporaryDirectory()
        path = directory.path + "-xfs"
        image = directory.path + "-xfs.img"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: image, contents: nil), truncate(image, off_t(megabytes) << 20) == 0 else {
            throw CocoaError(.fileWriteUnknown)
        }
        try Self.run("/usr/sbin/mkfs.xfs", ["-q", "-m", "reflink=1", image])
        try Self.run("/bin/mount", ["-o", "loop", image, path])
    }

    deinit {
        try? Self.run("/bin/umount", [path])
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.removeItem(atPath: image)
    }

    /// The free bytes of the file system, as `df` counts them.
    public func freeBytes() -> Int64 {
        var status = statvfs()
        guard statvfs(path, &status) == 0 else { return 0 }
        return Int64(status.f_bfree) * Int64(status.f_frsize)
    }

    private static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
    }
}
