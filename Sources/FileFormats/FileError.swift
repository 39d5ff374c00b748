/// A failure a person can act on: the file or folder concerned and the reason, printed as one line,
/// `"<path>: <reason>"`. Every module's user-facing errors conform, so the CLI reports them all alike.
public protocol PathReportingError: HintedError, CustomStringConvertible {
    /// The file or folder as the caller named it.
    var path: String { get }
    /// What is wrong, without the path, on one line.
    var reason: String { get }
}

extension PathReportingError {
    /// `"<path>: <reason>"`.
    public var description: String { "\(path): \(reason)" }
    /// None, unless the error type keeps one.
    public var hint: ErrorHint? { nil }
}

/// What would help with a failure, named for what it is rather than for how a program spells it: the module that
/// fails says which remedy applies (`ErrorHint.printScriptsInstead`), and the program in front of the person words
/// it with its own options (the CLI's `ErrorWording`). Not part of the error's one-line `description`, which stays
/// path and reason. Each module declares its hints as static constants of this type, as `Notification.Name` does.
public struct ErrorHint: Sendable, Hashable, CustomStringConvertible {
    /// The hint's name, unique across modules (`"ClusterJobs.printScriptsInstead"`).
    public let name: String

    /// A hint called `name`.
    public init(_ name: String) { self.name = name }

    /// The name.
    public var description: String { name }
}

/// An error that may carry an `ErrorHint`; the path-and-reason errors keep theirs through `init(_ error:)`, so a
/// hint survives being passed on at module boundaries.
public protocol HintedError: Error, Sendable {
    /// What would help, when the failing module knows.
    var hint: ErrorHint? { get }
}

/// The one implementation of a plain path-and-reason error. `Domain` is an empty marker type per module, so that
/// `DatasetError`, `ImageError`, `ExportError` … stay distinct types that callers can catch separately, while
/// sharing this code.
public struct FileError<Domain>: PathReportingError, Equatable {
    /// The file or folder as the caller named it.
    public let path: String
    /// What is wrong, without the path, on one line.
    public let reason: String
    /// What would help, worded by the program showing the error.
    public let hint: ErrorHint?

    /// Makes an error for `path`, with `hint` when the failing code knows what would help.
    public init(path: String, reason: String, hint: ErrorHint? = nil) {
        self.path = path
        self.reason = reason
        self.hint = hint
    }

    /// `error` passed on as this module's error: the same path, reason and hint, so the line the user reads is the same.
    public init(_ error: some PathReportingError) {
        self.init(path: error.path, reason: error.reason, hint: error.hint)
    }
}

/// The one implementation of an error that names a file where there is one: "path: reason", or the reason alone
/// (a bad option value, a missing variable). `Domain` keeps each module's errors a distinct type
/// (`WorkbenchError`, `ClusterJobError`, `AugmentationError`), as with `FileError`.
public struct OptionalPathError<Domain>: HintedError, Equatable, CustomStringConvertible {
    /// The file or folder concerned, if any.
    public let path: String?
    /// What is wrong, in one line.
    public let reason: String
    /// What would help, worded by the program showing the error.
    public let hint: ErrorHint?

    /// An error about no file in particular.
    public init(_ reason: String) {
        self.init(path: nil, reason: reason)
    }

    /// An error about no file in particular, with `hint` when the failing code knows what would help.
    public init(reason: String, hint: ErrorHint? = nil) {
        self.init(path: nil, reason: reason, hint: hint)
    }

    /// An error about `path` (nil when no file is to blame), with `hint` when the failing code knows what would help.
    public init(path: String?, reason: String, hint: ErrorHint? = nil) {
        self.path = path
        self.reason = reason
        self.hint = hint
    }

    /// "path: reason", or the reason alone.
    public var description: String { path.map { "\($0): \(reason)" } ?? reason }
}

/// A path-and-reason error that also says which kind of failure it is, for code that reacts to some kinds (and for
/// tests). `Kind` is each module's own enum (`VideoFailure`, `LabelingFailure`).
public struct KindedFileError<Kind: Sendable & Equatable>: PathReportingError, Equatable {
    /// What went wrong.
    public let kind: Kind
    /// The file or folder concerned.
    public let path: String
    /// One-line explanation.
    public let reason: String
    /// What would help, worded by the program showing the error.
    public let hint: ErrorHint?

    /// Makes an error, with `hint` when the failing code knows what would help.
    public init(_ kind: Kind, path: String, reason: String, hint: ErrorHint? = nil) {
        self.kind = kind
        self.path = path
        self.reason = reason
        self.hint = hint
    }
}

// Passing a lower module's error on at a module boundary: one initialiser per kind of error instead of
// `Error(path: error.path, reason: error.reason)` written out at every call site.
extension OptionalPathError {
    /// `error` passed on as this domain's error: the same path, reason and hint, so the line the user reads is the same.
    public init(_ error: some PathReportingError) {
        self.init(path: error.path, reason: error.reason, hint: error.hint)
    }

    /// `error` passed on with `context` before its reason: "path: context: reason".
    public init(_ error: some PathReportingError, context: String) {
        self.init(path: error.path, reason: "\(context): \(error.reason)", hint: error.hint)
    }

    /// Another domain's error passed on as this domain's: the same path (or none), reason and hint.
    public init<Other>(_ error: OptionalPathError<Other>) {
        self.init(path: error.path, reason: error.reason, hint: error.hint)
    }

    /// Another domain's error passed on, naming `path` when it names no file itself.
    public init<Other>(_ error: OptionalPathError<Other>, defaultPath path: String) {
        self.init(path: error.path ?? path, reason: error.reason, hint: error.hint)
    }
}

/// An error that can be passed on keeping what the user reads (the file, if any, and the reason) without being a
/// `PathReportingError`: every `OptionalPathError` domain, and an error that names no file in some of its cases.
public protocol PassableError: Error {
    /// This error as `Domain`'s.
    func passed<Domain>(as type: OptionalPathError<Domain>.Type) -> OptionalPathError<Domain>
}

extension OptionalPathError: PassableError {
    /// This error as `Other`'s, through `init(_:)`.
    public func passed<Other>(as type: OptionalPathError<Other>.Type) -> OptionalPathError<Other> { OptionalPathError<Other>(self) }
}

extension OptionalPathError {
    /// `error` as this domain's error: a `PathReportingError` or `PassableError` keeps its path and reason (through
    /// this type's own initialisers); any other error (none of Workbench's own) is worded by its description.
    public init(passing error: any Error) {
        if let error = error as? Self {
            self = error
        } else if let error = error as? any PathReportingError {
            self.init(error)
        } else if let error = error as? any PassableError {
            self = error.passed(as: Self.self)
        } else {
            self.init("\(error)")
        }
    }

    /// Runs `body` and passes any error it throws on as this domain's (`init(passing:)`): the one way a workflow
    /// lifts the errors of the modules it calls, instead of a `catch` per kind of error at every call.
    public static func passingOn<Value>(_ body: () throws -> Value) throws(Self) -> Value {
        do {
            return try body()
        } catch {
            throw Self(passing: error)
        }
    }

    /// `passingOn(_:)` with `context` before the passed error's reason: "path: context: reason".
    public static func passingOn<Value>(context: String, _ body: () throws -> Value) throws(Self) -> Value {
        do {
            return try body()
        } catch {
            let passed = Self(passing: error)
            throw Self(path: passed.path, reason: "\(context): \(passed.reason)", hint: passed.hint)
        }
    }

    /// `passingOn(_:)`, an error of no known kind (none of Workbench's own) naming `path`.
    public static func passingOn<Value>(naming path: String, _ body: () throws -> Value) throws(Self) -> Value {
        do {
            return try body()
        } catch {
            if error is any PassableError || error is any PathReportingError { throw Self(passing: error) }
            throw Self(path: path, reason: "\(error)")
        }
    }
}
