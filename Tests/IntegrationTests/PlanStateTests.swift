import Foundation
import Glibc
import Testing

/// `plan` classifies as `pull` will, through the same state-index check:
/// a file the state index proves is `current` (a pull will not read it), any other file of
/// the right size is `check`.
@Suite struct PlanStateTests {
    @Test("after a pull, plan shows the files as current, and a touched or changed one as check")
    func planReadsTheStateIndexAsPullDoes() throws {
        let sandbox = try Sandbox(serving: [
            "a.bin": PullNginxTests.random(3000), "dir/b.bin": PullNginxTests.random(100), "c.bin": PullNginxTests.random(10),
        ])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)
        #expect(try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest]).status == 0)

        let afterPull = try AssetSyncBinary.run(["plan", manifest, "--dest", sandbox.dest])
        #expect(afterPull.status == 0)
        #expect(afterPull.stdout == """
            ACTION   SIZE        PATH
            current  2.9 KiB     a.bin
            current  10 B        c.bin
            current  100 B       dir/b.bin

            3 files in the manifest: 0 new, 0 changed, 0 to check, 3 current; 0 extra in the cache.
            To download: 0 B (0 bytes).

            """)

        // A new mtime, and the same size with other bytes: the state index no longer proves either.
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, sandbox.dest + "/a.bin", &times, 0) == 0)
        try Data(repeating: 7, count: 10).write(to: URL(fileURLWithPath: sandbox.dest + "/c.bin"))
        let json = try AssetSyncBinary.run(["plan", manifest, "--dest", sandbox.dest, "--json"])
        #expect(json.status == 0)
        #expect(json.stdout == """
            {"type":"plan","action":"check","path":"a.bin","size":3000}
            {"type":"plan","action":"check","path":"c.bin","size":10}
            {"type":"plan","action":"current","path":"dir/b.bin","size":100}
            {"type":"summary","files":3,"new":0,"changed":0,"check":2,"current":1,"extra":0,"bytes_to_download":0,"bytes_to_check":3010,"bytes_reusable":0}

            """)

        // The pull then does what the plan said: reads the two, proves a.bin, downloads c.bin again.
        let pull = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--json"])
        #expect(pull.status == 0)
        #expect(pull.stdout.hasPrefix(#"{"type":"plan","files":3,"new":0,"changed":0,"check":2,"current":1,"extra":0,"#))
        #expect(pull.stderr.hasPrefix("updated  c.bin (10 B)\n0 new, 1 updated, 2 current, 0 failed"))
        #expect(try sandbox.cached() == sandbox.expected)
    }
}
