import AssetSyncSystem
import Foundation
import Glibc
import Testing
import TestSupport

/// The one bounded, non-blocking read of a whole file: what it gives for each kind of thing at a name.
@Suite struct RegularFileReadTests {
    static func read(_ path: String, limit: Int = 100, followingLinks: Bool = false) throws -> RegularFileRead {
        try RegularFileRead.read(path, limit: limit, followingLinks: followingLinks, display: path)
    }

    @Test func aRegularFileIsReadWholeAndNothingElseIsReadFrom() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("file", "twelve bytes")
        #expect(try Self.read(file) == .bytes(Array("twelve bytes".utf8)))
        #expect(try Self.read(file, limit: 12) == .bytes(Array("twelve bytes".utf8)))
        #expect(try Self.read(file, limit: 11) == .notRead(.tooLarge(limit: 11)))
        #expect(try Self.read(directory.path + "/none") == .notRead(.missing))
        #expect(try Self.read(directory.path) == .notRead(.notRegular("a directory")))
        // A FIFO with no writer: opened at once, and not read (a blocking open would never return).
        let fifo = directory.path + "/fifo"
        try #require(mkfifo(fifo, 0o600) == 0)
        #expect(try Self.read(fifo) == .notRead(.notRegular("a FIFO (named pipe)")))
        #expect(try Self.read("/dev/null") == .notRead(.notRegular("a character device")))
        // A link is refused as one, or followed to what it names.
        let link = directory.path + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        #expect(try Self.read(link) == .notRead(.notRegular("a symbolic link")))
        #expect(try Self.read(link, followingLinks: true) == .bytes(Array("twelve bytes".utf8)))
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/to-fifo", withDestinationPath: fifo)
        #expect(try Self.read(directory.path + "/to-fifo", followingLinks: true) == .notRead(.notRegular("a FIFO (named pipe)")))
        #expect(RegularFileRead.Reason.notRegular("a FIFO (named pipe)").words == "is a FIFO (named pipe), not a regular file")
    }
}
