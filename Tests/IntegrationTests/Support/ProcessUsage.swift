import Foundation

/// One look at a running process through `/proc/PID`: its resident memory now and at its peak, its
/// open descriptors, and the signals it catches.
struct ProcessUsage: Equatable {
    /// `VmRSS`, bytes.
    var residentBytes: Int
    /// `VmHWM`, bytes: the most `VmRSS` has been since the process started.
    var peakResidentBytes: Int
    /// The entries of `/proc/PID/fd`.
    var openDescriptors: Int
    /// `SigCgt`: bit `n - 1` is set when signal `n` has a handler.
    var caughtSignals: UInt64

    /// Whether signal `number` has a handler.
    func catches(_ number: Int32) -> Bool { caughtSignals & (1 << UInt64(number - 1)) != 0 }

    /// The process's usage now; nil once it has gone (or if `/proc` is unreadable).
    static func sample(pid: Int32) -> ProcessUsage? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
        else { return nil }
        return parse(status: status, openDescriptors: descriptors.count)
    }

    /// The fields of a `/proc/PID/status` text; nil when one is missing (a zombie has no `VmRSS`).
    static func parse(status: String, openDescriptors: Int) -> ProcessUsage? {
        var fields: [Substring: Substring] = [:]
        for line in status.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon]] = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
        }
        /// "123 kB" as bytes.
        func kibibytes(_ name: Substring) -> Int? {
            fields[name]?.split(separator: " ").first.flatMap { Int($0) }.map { $0 * 1024 }
        }
        guard let resident = kibibytes("VmRSS"), let peak = kibibytes("VmHWM"),
              let caught = fields["SigCgt"].flatMap({ UInt64($0, radix: 16) })
        else { return nil }
        return ProcessUsage(
            residentBytes: resident, peakResidentBytes: peak, openDescriptors: openDescriptors, caughtSignals: caught)
    }
}
