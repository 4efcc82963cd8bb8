/// The easy handles of one engine's transfers, each lent to a download for one attempt and taken
/// back, reset, when the attempt ends: a run holds about as many handles as run at once, not one
/// for each file waiting to be committed (hundreds of 5 KB handles and their buffers on thousands
/// of small files), and makes `jobs` of them, not one a file. Lives on the transfer thread only.
final class CurlEasyPool {
    private var free: [CurlEasy] = []

    init() {}

    /// A handle with libcurl's defaults and no error, made or reused.
    func take() -> CurlEasy { free.popLast() ?? CurlEasy() }

    /// Takes `easy` back for the next download; it must no longer be on a multi handle.
    func give(_ easy: CurlEasy) {
        easy.reset()
        free.append(easy)
    }
}
