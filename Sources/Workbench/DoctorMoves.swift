import DataAudit
import Datasets
import FileFormats
import Foundation

/// `doctor --move-to`: which findings' files leave the dataset, and where to.
public struct DoctorMove: Sendable, Equatable {
    /// The folder the files go into, under their paths relative to the dataset folder; made when missing.
    public var folder: String
    /// The kinds of finding whose files move.
    public var kinds: Set<FindingKind>
    /// Only findings scoring at least this (each kind its own score: `FindingKind`); nil moves every one.
    public var minimumScore: Double?

    /// Moves the files of `kinds` into `folder`.
    public init(folder: String, kinds: Set<FindingKind>, minimumScore: Double? = nil) {
        self.folder = folder
        self.kinds = kinds
        self.minimumScore = minimumScore
    }

    /// The undo list's name inside `folder`.
    public static let undoListName = "doctor-moves.json"
}

/// The undo list `doctor --move-to` writes: every move, to be put back by `DoctorWorkflow.undo`.
struct DoctorUndoList: Codable {
    var moves: [FileMove]
}

extension DoctorWorkflow {
    /// Moves the files `move` chooses from `findings` (all or nothing, `FileMoves`) and writes the undo list into
    /// the folder; returns the moves and the list's path. The list is written before anything moves, so an
    /// interrupted run still leaves it.
    static func perform(_ move: DoctorMove, findings: AuditFindings, roots: [String]) throws(WorkbenchError) -> (moves: [FileMove], undoList: String)
    {
        let files = findings.files(of: move.kinds, minimumScore: move.minimumScore)
        let moves = try WorkbenchError.passingOn { try FileMoves.plan(paths: files, roots: roots, into: move.folder) }
        let listPath = (move.folder as NSString).appendingPathComponent(DoctorMove.undoListName)
        if !FolderWalk.isFolder(move.folder) {
            do {
                try FileManager.default.createDirectory(atPath: move.folder, withIntermediateDirectories: false)
            } catch {
                throw WorkbenchError(path: move.folder, reason: "cannot make the folder: \(error.localizedDescription)")
            }
        }
        try writeUndoList(DoctorUndoList(moves: moves), to: listPath)
        try WorkbenchError.passingOn { try FileMoves.perform(moves) }
        return (moves, listPath)
    }

    /// Puts back the files an undo list (`doctor --move-to`'s `doctor-moves.json`) names, all or nothing, and
    /// returns the moves undone. The list is kept.
    public static func undo(listPath: String) throws(WorkbenchError) -> [FileMove] {
        guard let data = FileManager.default.contents(atPath: listPath) else {
            throw WorkbenchError(path: listPath, reason: "cannot read the undo list")
        }
        let list: DoctorUndoList
        do {
            list = try JSONDecoder().decode(DoctorUndoList.self, from: data)
        } catch {
            throw WorkbenchError(path: listPath, reason: "not an undo list of doctor's moves")
        }
        try WorkbenchError.passingOn { try FileMoves.undo(list.moves) }
        return list.moves
    }

    private static func writeUndoList(_ list: DoctorUndoList, to path: String) throws(WorkbenchError) {
        let text = try ReportJSON.text(list)
        try WorkbenchError.passingOn { try AtomicFile.write(text: text, to: path) }
    }
}
