import Foundation
import Glibc
import Testing
import TestSupport

/// What people and machines see, from real runs against nginx: plain lines
/// when stderr is not a terminal, JSON events on stdout, and the live block
/// inside a real terminal (tmux).
@Suite struct OutputTests {
    private static func events(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
        }
    }

    @Test func jsonEventsOnStdoutAndPlainLinesOnStderr() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(70_000), "dir/b.bin": PullNginxTests.random(10)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let gone = TestManifest.File(path: "gone.bin", size: 5, crc32: "00000001")
        let manifest = try sandbox.writeManifest(sandbox.files + [gone], base: nginx.baseURL, name: Sandbox.manifestName)
        try sandbox.completeAnEmptyPull()
        try Data("x".utf8).write(to: URL(fileURLWithPath: sandbox.dest + "/stray"))

        let result = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--json", "--delete"])
        #expect(result.status == 1)
        let events = try Self.events(result.stdout)
        let types = events.map { $0["type"] as! String }
        #expect(types.first == "plan" && types.last == "summary")
        #expect(types.filter { $0 == "start" }.count == 3)
        #expect(types.filter { $0 == "done" }.count == 2)
        #expect(types.filter { $0 == "failed" }.count == 1)
        #expect(types.contains("deleted"))
        func keys(_ type: String) -> Set<String> { Set(events.first { $0["type"] as! String == type }!.keys) }
        #expect(keys("plan") == ["type", "files", "new", "changed", "check", "current", "extra", "bytes_to_download", "bytes_to_check"])
        #expect(keys("start") == ["type", "path", "size", "offset", "url"])
        #expect(keys("done") == ["type", "path", "size", "action", "bytes_transferred", "attempts", "url", "mirror", "primary", "reused_from", "reused_bytes"])
        #expect(keys("failed") == ["type", "path", "size", "reason", "http_status", "url", "attempts", "local", "sources"])
        #expect(keys("deleted") == ["type", "path"])
        #expect(keys("summary") == ["type", "new", "updated", "current", "failed", "interrupted", "deleted", "bytes_transferred", "bytes_reused", "milliseconds", "steps_ms", "exit_code"])
        let failed = events.first { $0["type"] as! String == "failed" }!
        #expect(failed["path"] as? String == "gone.bin" && failed["http_status"] as? Int == 404 && failed["reason"] as? String == "HTTP 404")
        let summary = events.last!
        #expect(summary["new"] as? Int == 2 && summary["failed"] as? Int == 1 && summary["deleted"] as? Int == 1 && summary["exit_code"] as? Int == 1)
        #expect(summary["bytes_transferred"] as? Int == 70_010)
        // Where the downloads' threads spent their time: every step, in whole milliseconds.
        let steps = try #require(summary["steps_ms"] as? [String: Int])
        #expect(Set(steps.keys) == ["receiving", "network_waits", "buffer_waits", "write_waits", "verifying", "commit_waits", "writes", "syncs", "renames", "directory_syncs"])
        #expect(steps.values.allSatisfy { $0 >= 0 } && steps["syncs"]! + steps["renames"]! + steps["writes"]! > 0)

        // Human output stays on stderr, plain (no terminal): no escape codes.
        #expect(!result.stderr.contains("\u{1B}"))
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(Set(lines.prefix(4)) == [
            "new      a.bin (68.4 KiB)", "new      dir/b.bin (10 B)", "failed   gone.bin: HTTP 404 (\(nginx.url("gone.bin")))", "deleted  stray",
        ])
        #expect(lines[4].hasPrefix("2 new, 0 updated, 0 current, 1 failed, 1 deleted; 68.4 KiB transferred in "))
        #expect(Array(lines.suffix(2)) == ["Failed:", "  gone.bin: HTTP 404 (\(nginx.url("gone.bin")))"])

        let quiet = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--quiet"])
        #expect(quiet.stderr == "failed   gone.bin: HTTP 404 (\(nginx.url("gone.bin")))\n"
            + "0 new, 0 updated, 2 current, 1 failed; 0 B transferred in " + quiet.stderr.split(separator: "transferred in ")[1])
    }

    @Test func verifyAndPlanSpeakJSONToo() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(100)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)
        #expect(try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest]).status == 0)
        let verify = try AssetSyncBinary.run(["verify", manifest, "--dest", sandbox.dest, "--json"])
        #expect(verify.status == 0)
        let events = try Self.events(verify.stdout)
        #expect(events.count == 2)
        #expect(events[0]["type"] as? String == "done" && events[0]["action"] as? String == "verified" && events[0]["path"] as? String == "a.bin")
        #expect(Set(events[1].keys) == ["type", "good", "missing", "corrupt", "unreadable", "bytes_read", "milliseconds", "exit_code"])
        let plan = try AssetSyncBinary.run(["plan", manifest, "--dest", sandbox.dest, "--json"])
        #expect(try Self.events(plan.stdout).map { $0["type"] as! String } == ["plan", "summary"])
    }

    /// Runs a pull inside tmux and reads the screen during and after the transfer.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "needs tmux"))
    func liveProgressInARealTerminalIsCleanedUp() throws {
        let sandbox = try Sandbox(serving: ["big/video.bin": PullNginxTests.random(16 << 20)])
        let nginx = try NginxServer(root: sandbox.served, extraConfig: "location /slow/ { alias \(sandbox.served.path)/; limit_rate 4m; }")
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL + "slow/")
        let session = "assetsync-\(getpid())-\(Int.random(in: 0..<1_000_000))"
        /// Runs a tmux command through posix_spawn with default signal handling and mask (started from
        /// Foundation's Process, `tmux new-session -d` waited for its session's command to end), its
        /// output through a file.
        func tmux(_ arguments: [String]) throws -> String {
            let outputPath = sandbox.root.path + "/tmux-output"
            let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
            let argv = ["/bin/sh", "-c", "/usr/bin/tmux \(quoted) > '\(outputPath)' 2>/dev/null < /dev/null"]
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var none = sigset_t()
            sigemptyset(&none)
            var all = sigset_t()
            sigfillset(&all)
            posix_spawnattr_setsigmask(&attributes, &none)
            posix_spawnattr_setsigdefault(&attributes, &all)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
            var pid: pid_t = 0
            let cArguments = argv.map { strdup($0) } + [nil]
            defer { cArguments.forEach { free($0) } }
            guard posix_spawn(&pid, argv[0], nil, &attributes, cArguments, environ) == 0 else { return "" }
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            return (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        }
        let done = sandbox.root.path + "/done"
        let command = "TERM=xterm \(AssetSyncBinary.url.path) pull \(manifest) --dest \(sandbox.dest); echo $? > \(done); sleep 60"
        _ = try tmux(["new-session", "-d", "-s", session, "-x", "100", "-y", "30", command])
        defer { _ = try? tmux(["kill-session", "-t", session]) }
        var during = ""
        _ = try waitUntil(timeout: 30, polling: .milliseconds(100)) {
            let screen = try tmux(["capture-pane", "-p", "-t", session])
            if screen.contains("Pulling 0/1 files"), screen.contains("[=") { during = screen }
            return !during.isEmpty || FileManager.default.fileExists(atPath: done)
        }
        #expect(during.contains("Pulling 0/1 files"), "no progress block seen")
        #expect(during.contains("big/video.bin") && during.contains("/ 16.0 MiB"))
        // The run has ended once `done` exists; the screen has its last lines once the summary is on it.
        #expect(waitUntil(timeout: 30) { FileManager.default.fileExists(atPath: done) })
        var after = ""
        _ = try waitUntil(polling: .milliseconds(100)) {
            after = try tmux(["capture-pane", "-p", "-t", session])
            return after.contains(" transferred in ")
        }
        #expect(try String(contentsOfFile: done, encoding: .utf8) == "0\n")
        #expect(!after.contains("Pulling"))
        #expect(after.contains("new      big/video.bin (16.0 MiB)"))
        #expect(after.contains("1 new, 0 updated, 0 current, 0 failed; 16.0 MiB transferred in "))
    }
}
