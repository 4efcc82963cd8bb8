/// Why a text is not strict base64.
package enum Base64Error: Error, Equatable, CustomStringConvertible {
    case length(Int)
    case character(at: Int)
    case paddingBits

    package var description: String {
        switch self {
        case .length(let count): return "its length \(count) is not a multiple of 4"
        case .character(let offset): return "character \(offset + 1) is not a base64 digit"
        case .paddingBits: return "its last digit has bits set past the data"
        }
    }
}
