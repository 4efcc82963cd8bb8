import Synchronization
import Testing
@testable import AssetSyncCLI
@testable import AssetSyncCache
@testable import AssetSyncManifestIO
@testable import AssetSyncModel
@testable import AssetSyncPull
@testable import AssetSyncSystem
@testable import AssetSyncTransfer

/// The live progress block and the plain progress lines, driven by an injected clock and width.
@Suite struct ProgressRenderingTests {
    /// Collects what the reporter writes; the clock and the width are set by the test.
    final class Screen: Sendable {
        let written = Mutex<[String]>([])
        let now = Mutex(100.0)
        let columns = Mutex(80)

        func output(live: Bool) -> HumanPullReporter.Output {
            .init(
                write: { text in self.written.withLock { $0.append(text) } }, clock: { self.now.withLock { $0 } },
                width: { self.columns.withLock { $0 } }, live: live)
        }

        var text: String { written.withLock { $0.joined() } }
        var writes: Int { written.withLock { $0.count } }
        func advance(_ seconds: Double) { now.withLock { $0 += seconds } }
    }

    private func snapshot(done: Int64) -> ProgressSnapshot {
        ProgressSnapshot(
            filesDone: 1, filesTotal: 3, bytesDone: done, bytesTotal: 300 << 20,
            transfers: [.init(path: "packs/dlc/winter/a-rather-long-file-name-for-sounds.zip", size: 200 << 20, done: done - (100 << 20))])
    }

    @Test func linesFitTheWidthAndShortenNamesFromTheLeft() {
        let lines = ProgressLines.render(snapshot(done: 150 << 20), width: 60, rate: Double(10 << 20), transferRates: [:])
        #expect(lines[0] == "Pulling 1/3 files  150.0 MiB / 300.0 MiB  10.0 MiB/s")
        #expect(lines[1] == "  …name-for-sounds.zip  [==>     ]    50.0 MiB /  200.0 MiB")
        let wide = ProgressLines.render(snapshot(done: 150 << 20), width: 120, rate: Double(10 << 20), transferRates: [:])
        #expect(wide[0] == "Pulling 1/3 files  150.0 MiB / 300.0 MiB  10.0 MiB/s  ETA 0:15")
        #expect(lines.allSatisfy { $0.count < 60 })
        let narrow = ProgressLines.render(snapshot(done: 150 << 20), width: 30, rate: nil, transferRates: [:])
        #expect(narrow.allSatisfy { $0.count < 30 })
        #expect(ProgressLines.bar(5, of: 10, width: 12) == "[=====>    ]")
        #expect(ProgressLines.bar(10, of: 10, width: 6) == "[====]")
        #expect(ProgressLines.clock(3725) == "1:02:05")
    }

    @Test("path, bar and figures keep fixed columns whatever the sizes' widths")
    func columnsLineUp() {
        let transfers: [ProgressSnapshot.Transfer] = [
            .init(path: "a.bin", size: 12, done: 3),
            .init(path: "packs/level1.zip", size: 5 << 10, done: 1 << 10),
            .init(path: "videos/a-very-long-name-for-the-intro-video.mp4", size: (1 << 30) - (100 << 10), done: 700 << 20),
            .init(path: "big.pak", size: 3 << 40, done: 2 << 30),
        ]
        let snapshot = ProgressSnapshot(filesDone: 0, filesTotal: 4, bytesDone: 0, bytesTotal: 1, transfers: transfers)
        let rates: [String: Double] = ["a.bin": 12, "big.pak": Double(900 << 20)]
        for width in [40, 60, 80, 120] {
            let lines = ProgressLines.render(snapshot, width: width, rate: nil, transferRates: rates).dropFirst()
            #expect(lines.allSatisfy { $0.count < width }, "width \(width)")
            #expect(Set(lines.map(\.count)).count == 1, "every transfer line as wide as the others at width \(width): \(lines)")
            for mark in ["[", "]", "/ "] {
                let columns = Set(lines.map { line in line.firstRange(of: mark).map { line.distance(from: line.startIndex, to: $0.lowerBound) } })
                #expect(columns.count == 1, "'\(mark)' in one column at width \(width): \(lines)")
            }
        }
    }

    @Test func liveBlockIsThrottledRedrawnInPlaceAndErasedAtTheEnd() {
        let screen = Screen()
        let reporter = HumanPullReporter(output: screen.output(live: true), quiet: false)
        reporter.progress(snapshot(done: 110 << 20))
        #expect(screen.writes == 1)
        #expect(screen.text.hasPrefix("Pulling 1/3 files  110.0 MiB / 300.0 MiB\n  "))
        for _ in 0..<5 {
            screen.advance(0.02)
            reporter.progress(snapshot(done: 120 << 20))
        }
        #expect(screen.writes == 1)  // at most ten redraws a second
        screen.advance(0.1)
        screen.columns.withLock { $0 = 50 }
        reporter.progress(snapshot(done: 130 << 20))
        #expect(screen.writes == 2)
        let redraw = screen.written.withLock { $0[1] }
        #expect(redraw.hasPrefix("\u{1B}[2F\u{1B}[J"))  // back to the block's first line, cleared
        #expect(redraw.dropFirst(7).split(separator: "\n").allSatisfy { $0.count < 50 })

        // A file's line goes above the block, which is drawn again under it.
        reporter.finished(FileResult(path: "a.bin", size: 10, action: .new, outcome: .committed, attempts: 1, transferred: 10))
        let above = screen.written.withLock { $0[2] }
        #expect(above.hasPrefix("\u{1B}[2F\u{1B}[Jnew      a.bin (10 B)\nPulling 1/3 files"))

        reporter.summarize(PullOutcome(results: [], interrupted: false, stoppedByLocalError: false), seconds: 1)
        #expect(screen.written.withLock { $0.last! }.hasPrefix("\u{1B}[2F\u{1B}[J0 new, 0 updated, 0 current, 0 failed"))
    }

    @Test func plainOutputHasNoEscapesAndAProgressLineEveryTenSeconds() {
        let screen = Screen()
        let reporter = HumanPullReporter(output: screen.output(live: false), quiet: false)
        reporter.progress(snapshot(done: 110 << 20))
        screen.advance(5)
        reporter.progress(snapshot(done: 120 << 20))
        #expect(screen.writes == 0)
        screen.advance(5)
        reporter.progress(snapshot(done: 160 << 20))
        #expect(screen.text == "progress: 1/3 files, 160.0 MiB of 300.0 MiB, 8.0 MiB/s, ETA 0:18\n")
        reporter.finished(FileResult(path: "b.bin", size: 10, action: .changed, outcome: .committed, attempts: 1, transferred: 10))
        #expect(screen.text.hasSuffix("updated  b.bin (10 B)\n"))
        #expect(!screen.text.contains("\u{1B}"))
    }

    @Test func quietKeepsOnlyFailures() {
        let screen = Screen()
        let reporter = HumanPullReporter(output: screen.output(live: true), quiet: true)
        reporter.progress(snapshot(done: 110 << 20))
        reporter.finished(FileResult(path: "a.bin", size: 1, action: .new, outcome: .committed, transferred: 1))
        reporter.retrying(path: "c.bin", reason: "HTTP 503", after: 1)
        #expect(screen.writes == 0)
        reporter.finished(FileResult(
            path: "b.bin", size: 1, action: .new, outcome: .failed(Failure(isLocal: false, reason: "HTTP 404", httpStatus: 404, url: "http://h/b.bin"))))
        #expect(screen.text == "failed   b.bin: HTTP 404 (http://h/b.bin)\n")
    }
}
