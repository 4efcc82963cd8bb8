import AssetSyncSystem
import Foundation
import Glibc
import Testing
import TestSupport

/// Calls relative to an open directory: names moved, linked and removed inside it, no symlink
/// followed at a child's name, and failures that name the call, the child's path and the `errno`.
@Suite struct DirectoryHandleTests {
    @Test func aFailureNamesTheCallThePathAndTheErrno() throws {
        let directory = try TemporaryDirectory()
        let handle = try DirectoryHandle(opening: directory.path)
        #expect(throws: SystemError("open", path: directory.path + "/none", code: ENOENT)) { try handle.openDirectory("none") }
        #expect(throws: SystemError("unlink", path: directory.path + "/none", code: ENOENT)) { try handle.removeFile("none") }
        #expect(throws: SystemError("stat", path: directory.path + "/none", code: ENOENT)) { try handle.status(of: "none") }
        #expect(throws: SystemError("rename", path: "shown", code: ENOENT)) { try handle.rename("none", to: "other", in: handle, path: "shown") }
        _ = try directory.write("file", "x")
        #expect(throws: SystemError("rmdir", path: directory.path + "/file", code: ENOTDIR)) { try handle.removeDirectory("file") }
        let error = SystemError("open", path: directory.path + "/none", code: ENOENT)
        #expect(error.description == "open '\(directory.path)/none': No such file or directory")
    }

    @Test func aNameAlreadyGoneOrTakenIsToldApartFromAFailure() throws {
        let directory = try TemporaryDirectory()
        let handle = try DirectoryHandle(opening: directory.path)
        #expect(try handle.makeDirectory("made"))
        #expect(try !handle.makeDirectory("made"))
        try handle.removeDirectory("made")
        try handle.removeDirectory("made", allowingMissing: true)
        try handle.removeFile("made", allowingMissing: true)
        #expect(handle.kind(of: "made") == nil)
    }

    @Test func namesAreRenamedLinkedAndRemovedRelativeToTheHandle() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("a/file", "bytes")
        try FileManager.default.createDirectory(atPath: directory.path + "/b", withIntermediateDirectories: true)
        let top = try DirectoryHandle(opening: directory.path)
        let a = try top.openDirectory("a")
        let b = try top.openDirectory("b")
        #expect(a.path == directory.path + "/a")
        try a.rename("file", to: "moved", in: b)
        #expect(a.kind(of: "file") == nil)
        try b.link("moved", to: "second", in: a)
        #expect(try b.status(of: "moved").st_ino == a.status(of: "second").st_ino)
        #expect(try b.status(of: "moved").st_nlink == 2)
        try b.removeFile("moved")
        #expect(try String(contentsOfFile: directory.path + "/a/second", encoding: .utf8) == "bytes")
        try a.makeSymlink("link", to: "second")
        #expect(a.linkTarget(of: "link") == "second")
        #expect(a.kind(of: "link") == S_IFLNK)
        try b.sync()
        #expect(try a.entries().map(\.name).sorted() == ["link", "second"])
    }

    @Test func aSymlinkAtAChildsNameIsNeverFollowedUnlessAsked() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("real/file", "bytes")
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/to-real", withDestinationPath: "real")
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/to-file", withDestinationPath: "real/file")
        let top = try DirectoryHandle(opening: directory.path)
        #expect(throws: SystemError.self) { try top.openDirectory("to-real") }
        #expect(try top.openDirectory("to-real", followingLink: true).entries().map(\.name) == ["file"])
        #expect(throws: SystemError("open", path: directory.path + "/to-file", code: ELOOP)) {
            try top.openFile("to-file", flags: O_RDONLY)
        }
        #expect(throws: SystemError.self) { try DirectoryHandle(opening: directory.path + "/to-real", followingLink: false) }
        let fd = try top.openFile("new", flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
        defer { close(fd) }
        #expect(try top.status(of: "new").st_mode & 0o777 == 0o600)
        #expect(try FileDescriptor(fd).tryLock())
        let second = try top.openFile("new", flags: O_RDONLY)
        defer { close(second) }
        #expect(try !FileDescriptor(second).tryLock())
    }
}
