import Foundation
import Synchronization
import TestSupport

/// A `FaultServer` behaviour that answers each request in a way picked at random: truncated, reset,
/// stalled past the client's stall timeout, a 5xx with a small `Retry-After`, with a byte flipped,
/// with a lying `Content-Length`, or honestly. The pick and its details (where to cut, which byte)
/// depend only on the seed, the path and the request's attempt number, so a seed replays the same
/// faults whatever order concurrent requests arrive in. It counts what it injected; with `injecting`
/// off every answer is honest.
///
///     let faults = RandomFaults(seed: 42, stallSeconds: 4)
///     server.route("/a.bin", faults.behavior(for: resource))
final class RandomFaults: Sendable {
    enum Kind: String, CaseIterable, Sendable, Comparable {
        case honest
        case truncation
        case reset
        case stall
        case retryAfter = "5xx with Retry-After"
        case flippedByte = "flipped byte"
        case lyingLength = "lying Content-Length"

        static func < (lhs: Kind, rhs: Kind) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }

        /// How often the kind is picked, out of the sum of all: honest half of the time, so that a
        /// file usually gets through within its retries and some fail for a run.
        var weight: Int { self == .honest ? 6 : 1 }
    }

    private struct State {
        var injecting = true
        var counts: [Kind: Int] = [:]
    }

    let seed: UInt64
    /// How long a stall keeps the connection silent before closing it: longer than the client's
    /// stall timeout, so the client gives up first.
    let stallSeconds: Double
    private let state = Mutex(State())

    init(seed: UInt64, stallSeconds: Double) {
        self.seed = seed
        self.stallSeconds = stallSeconds
    }

    /// Whether requests get faults (true) or only honest answers.
    var injecting: Bool {
        get { state.withLock { $0.injecting } }
        set { state.withLock { $0.injecting = newValue } }
    }

    /// The answers given so far, by the kind really applied (a fault that needs a body and got a
    /// request without one counts as honest).
    var counts: [Kind: Int] { state.withLock { $0.counts } }

    /// Serves `resource`, each request with a fault picked at random while `injecting`.
    func behavior(for resource: FaultResource) -> FaultBehavior {
        FaultBehavior { [self] request in
            var random = SeededGenerator.forItem(seed: seed, [request.path, String(request.attempt)])
            let picked = injecting ? Self.pick(using: &random) : .honest
            let (response, applied) = answer(picked, resource: resource, request: request, random: &random)
            state.withLock { $0.counts[applied, default: 0] += 1 }
            return response
        }
    }

    /// A kind drawn by weight.
    static func pick(using random: inout SeededGenerator) -> Kind {
        var ticket = Int.random(in: 0..<Kind.allCases.reduce(0) { $0 + $1.weight }, using: &random)
        for kind in Kind.allCases {
            if ticket < kind.weight { return kind }
            ticket -= kind.weight
        }
        return .honest
    }

    /// The honest answer with `kind`'s fault applied, and the kind applied.
    private func answer(
        _ kind: Kind, resource: FaultResource, request: FaultRequest, random: inout SeededGenerator
    ) -> (FaultResponse, Kind) {
        var response = FaultRange.respond(resource, to: request)
        if kind == .retryAfter {
            let status = [500, 502, 503, 504].randomElement(using: &random)!
            return (FaultBehavior.status(status, headers: ["Retry-After": "1"]).respond(request), kind)
        }
        // The other faults act on a body of content: a 200 or 206 to a GET.
        let length = response.bodyLength
        guard kind != .honest, request.method == "GET", response.status == 200 || response.status == 206, length > 0 else {
            return (response, .honest)
        }
        let offset = Int.random(in: 0..<length, using: &random)
        switch kind {
        case .honest, .retryAfter:
            break
        case .truncation:
            response.cutoff = .close(after: offset)
        case .reset:
            response.cutoff = .reset(after: offset)
        case .stall:
            response.cutoff = .stall(after: offset, seconds: stallSeconds, then: .close)
        case .flippedByte:
            guard case .resource(let served, let range) = response.body.first, response.body.count == 1 else {
                return (response, .honest)
            }
            response.body = [.resource(served.flippingByte(at: range.lowerBound + offset), range)]
        case .lyingLength:
            // Shorter or longer than the body by up to its length; the server closes after it.
            let lie = Int.random(in: 1...length, using: &random)
            response.framing = .contentLength(Bool.random(using: &random) ? length + lie : length - lie)
        }
        return (response, kind)
    }
}
