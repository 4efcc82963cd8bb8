/// The fields of a value that most instances leave at their defaults, kept in one immutable box
/// that is nil while all of them are: a manifest entry without a URL, mirrors or SHA-256, or the
/// result of a file found current, then holds one pointer, which a million of them feel.
///
/// The box is never changed in place, since copies of the value share it: `changing` makes a new one.
final class RareFields<Fields: Equatable & Sendable>: Equatable, Sendable {
    let fields: Fields

    private init(fields: Fields) { self.fields = fields }

    /// The box for `fields`; nil when every one is at its default (`empty`).
    static func make(_ fields: Fields, empty: Fields) -> RareFields? { fields == empty ? nil : RareFields(fields: fields) }

    /// The box for `box`'s fields (or `empty`'s, without one) changed by `body`.
    static func changing(_ box: RareFields?, empty: Fields, _ body: (inout Fields) -> Void) -> RareFields? {
        var fields = box?.fields ?? empty
        body(&fields)
        return make(fields, empty: empty)
    }

    static func == (lhs: RareFields, rhs: RareFields) -> Bool { lhs === rhs || lhs.fields == rhs.fields }
}
