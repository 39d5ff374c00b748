import Glibc

/// One line for an `errno` value: the C library's message in lower case, then the symbol people search for,
/// e.g. "no space left on device (ENOSPC)".
public enum SystemError {
    /// The text for `code`.
    public static func describe(_ code: Int32) -> String {
        let message = strerror(code).map { String(cString: $0).lowercased() } ?? "error \(code)"
        guard let symbol = symbols[code] else { return message }
        return "\(message) (\(symbol))"
    }

    /// The symbols of the failures a file operation meets in practice. Built with `uniquingKeysWith` because some
    /// platforms give two names one number.
    private static let symbols: [Int32: String] = Dictionary(
        [
            (EPERM, "EPERM"), (ENOENT, "ENOENT"), (EINTR, "EINTR"), (EIO, "EIO"), (ENXIO, "ENXIO"), (EBADF, "EBADF"),
            (EAGAIN, "EAGAIN"), (ENOMEM, "ENOMEM"), (EACCES, "EACCES"), (EFAULT, "EFAULT"), (EBUSY, "EBUSY"),
            (EEXIST, "EEXIST"), (EXDEV, "EXDEV"), (ENODEV, "ENODEV"), (ENOTDIR, "ENOTDIR"), (EISDIR, "EISDIR"),
            (EINVAL, "EINVAL"), (ENFILE, "ENFILE"), (EMFILE, "EMFILE"), (ETXTBSY, "ETXTBSY"), (EFBIG, "EFBIG"),
            (ENOSPC, "ENOSPC"), (ESPIPE, "ESPIPE"), (EROFS, "EROFS"), (EMLINK, "EMLINK"), (EPIPE, "EPIPE"),
            (ENAMETOOLONG, "ENAMETOOLONG"), (ELOOP, "ELOOP"), (EDQUOT, "EDQUOT"), (ENOTSUP, "ENOTSUP"),
            (ETIMEDOUT, "ETIMEDOUT"), (ECONNRESET, "ECONNRESET"), (ESTALE, "ESTALE"),
        ], uniquingKeysWith: { first, _ in first })
}
