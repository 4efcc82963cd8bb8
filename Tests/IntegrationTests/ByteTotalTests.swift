import Foundation
import Testing
import TestSupport

/// Sizes near Int64.max. Each size fits in an Int64, their sum does not;
/// every total saturates at Int64.max instead of trapping or wrapping to a negative number.
@Suite struct ByteTotalTests {
    static let huge = Int(Int64.max)

    private static func manifest(in work: TemporaryDirectory) throws -> String {
        try TestManifest.write(
            [TestManifest.File(path: "a", size: huge, crc32: "00000000"), TestManifest.File(path: "b", size: huge, crc32: "00000000")],
            base: "http://127.0.0.1:9/", in: work)
    }

    @Test("plan of two entries of Int64.max bytes prints a total that does not wrap")
    func planTotalsSaturate() throws {
        let work = try TemporaryDirectory()
        let manifest = try Self.manifest(in: work)
        let plan = try AssetSyncBinary.run(["plan", manifest, "--dest", work.path + "/dest"])
        #expect(plan.status == 0)
        #expect(plan.stdout.hasSuffix("To download: 8.0 EiB (9223372036854775807 bytes).\n"))
        let json = try AssetSyncBinary.run(["plan", manifest, "--dest", work.path + "/dest", "--json"])
        #expect(json.status == 0)
        #expect(json.stdout.split(separator: "\n").last
            == #"{"type":"summary","files":2,"new":2,"changed":0,"check":0,"current":0,"extra":0,"bytes_to_download":9223372036854775807,"bytes_to_check":0,"bytes_reusable":0}"#)
    }

    @Test("pull of two entries of Int64.max bytes exits 3 for space, never a trap")
    func pullRefusesForSpace() throws {
        let work = try TemporaryDirectory()
        let manifest = try Self.manifest(in: work)
        let pull = try AssetSyncBinary.run(["pull", manifest, "--dest", work.path + "/dest", "--json"])
        #expect(pull.status == 3)
        #expect(pull.stderr.hasPrefix("Error: not enough free space in \(work.path)/dest: the pull needs 8.0 EiB (8.0 EiB to download"))
        #expect(pull.stdout.contains(#""bytes_to_download":9223372036854775807"#))
    }
}
