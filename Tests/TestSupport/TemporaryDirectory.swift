public import Foundation

/// A fresh directory under the system's temporary directory, removed (whatever a test made
/// unreadable in it included) when released.
public final class TemporaryDirectory {
    public let url: URL

    /// A fresh directory under `parent`, by default the system's temporary directory (`TMPDIR`).
    public init(in parent: String = NSTemporaryDirectory()) throws {
        var template = Array((URL(fileURLWithPath: parent).standardizedFileURL.path + "/assetsync-test-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        url = URL(fileURLWithPath: String(cString: made))
    }

    public var path: String { url.path }

    /// Writes `contents` at `relative` (creating directories) and returns its full path.
    @discardableResult
    public func write(_ relative: String, _ contents: some DataProtocol) throws -> String {
        let file = url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(contents).write(to: file)
        return file.path
    }

    @discardableResult
    public func write(_ relative: String, _ text: String) throws -> String { try write(relative, Data(text.utf8)) }

    deinit {
        _ = try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        try? FileManager.default.removeItem(at: url)
    }
}
