import Foundation
import EvictionPolicies

/// The records in a sweep's output folder: `cells/*.jsonl`, each written whole by ``AtomicFile``.
///
/// Why a file per batch rather than one appended file per shard: `compare` finishes all the cells
/// of a trace at once, so the cells of one trace run are written together, as one file that
/// appears whole (temporary, fsync, rename) or not at all. A kill can then leave only a
/// temporary file (a dot file, ignored), never half a record; no file is ever appended to, and two
/// tasks never write the same file. Each line still checks itself (``SweepRecord``), so a record
/// damaged afterwards (a copy cut short) is detected and its cell run again.
///
/// The file's name is the trace's base name and a hash of the trace's path and the cell
/// identities it holds, so a batch written twice (two tasks given the same shard) replaces itself
/// instead of duplicating, while copies of one trace in two folders (equal names, equal cells)
/// keep a file each.
public struct SweepRecordStore: Sendable {
    /// The sweep's output folder.
    public var directory: String

    /// The folder of records inside it.
    public static let recordsFolder = "cells"

    /// A store over `directory`.
    public init(directory: String) { self.directory = directory }

    var recordsPath: String { directory + "/" + Self.recordsFolder }

    /// One record as found: where it is and what it says.
    public struct Entry: Sendable {
        /// The record.
        public var record: SweepRecord
        /// `DIR/cells/NAME.jsonl:LINE`, DIR as the store was given it.
        public var place: String
    }

    /// What the folder holds.
    public struct Contents: Sendable {
        /// Every valid record, file by file (sorted by name), line by line.
        public var entries: [Entry] = []
        /// `DIR/cells/NAME.jsonl:LINE` (DIR as the store was given it) of each line that is cut short or damaged.
        public var damaged: [String] = []

        /// Whether a record holds the cell of `trace` (the path as the manifest gives it) whose
        /// identity is `identity`. The path counts as well as the identity: two traces of equal
        /// bytes (a copy) have cells of equal identity, and ``SweepMerge`` reports each under its
        /// own path, so each needs its own record. O(records).
        public func recorded() -> Set<String> {
            Set(entries.map { Self.recordKey(identity: $0.record.identity, trace: $0.record.cell.trace) })
        }

        /// The keys (as ``recorded()``'s) of the cells recorded only by builds other than `build`
        /// (records that name no build are taken for this one). Empty when `build` is unknown.
        /// O(records).
        public func recordedByOtherBuilds(than build: String?) -> Set<String> {
            guard let build else { return [] }
            var other = Set<String>(), same = Set<String>()
            for entry in entries {
                let key = Self.recordKey(identity: entry.record.identity, trace: entry.record.cell.trace)
                if let recordBuild = entry.record.build, recordBuild != build { other.insert(key) } else { same.insert(key) }
            }
            return other.subtracting(same)
        }

        /// The key ``recorded()`` files a cell under.
        public static func recordKey(identity: String, trace: String) -> String { identity + "\u{0}" + trace }
    }

    /// Reads every record file. O(total size).
    ///
    /// - Throws: ``CacheBenchError/trace(_:)`` (cannot open, 66) when a record file cannot be read.
    public func read() throws(CacheBenchError) -> Contents {
        var contents = Contents()
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: recordsPath)
        } catch {
            return contents   // no records yet
        }
        for name in names.sorted() where !name.hasPrefix(".") && name.hasSuffix(".jsonl") {
            let path = recordsPath + "/" + name
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
                // Foundation's own words for a folder or a missing file are "error 256".
                var info = stat()
                let why = stat(path, &info) != 0 ? String(cString: strerror(errno))
                    : (info.st_mode & S_IFMT) == S_IFDIR ? "it is a folder, not a file of records" : "\(error.localizedDescription)"
                throw .trace(TraceError(.cannotOpen, file: path, reason: "cannot read: \(why)"))
            }
            let text = String(decoding: data, as: UTF8.self)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
                // As a path from here, so that a note's place can be opened where it is read.
                let place = "\(path):\(number + 1)"
                if let record = SweepRecord(line: line) {
                    contents.entries.append(Entry(record: record, place: place))
                } else {
                    contents.damaged.append(place)
                }
            }
        }
        return contents
    }

    /// Writes `records` (the cells of one trace run) as one file, whole or not at all.
    ///
    /// - Throws: ``CacheBenchError/output(_:)`` (exit 74).
    public func write(_ records: [SweepRecord]) throws(CacheBenchError) {
        guard let first = records.first else { return }
        var hasher = _FNV1a64()
        hasher.combine(first.cell.trace)
        for record in records { hasher.combine(record.identity) }
        let base = String(first.cell.trace.split(separator: "/").last ?? "trace")
            .map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" }
        let name = String(base.drop { $0 == "." }.prefix(80)) + "-" + hasher.hex + ".jsonl"
        let path = recordsPath + "/" + name
        do throws(OutputError) {
            let file = try AtomicFile(path: path)
            try file.write(records.map { $0.line + "\n" }.joined())
            try file.commit()
        } catch {
            throw .output(error.description)
        }
    }

    /// Removes `path` and the folders above it up to `outermost` (which ``Folders/make(_:)`` made
    /// for it), each only while empty: `rmdir`, so a folder another run has begun to fill stays.
    static func removeEmptyFolders(from path: String, upTo outermost: String) {
        var folder = path
        while rmdir(folder) == 0 && folder != outermost {
            let parent = _parentPath(folder)
            if parent.isEmpty || parent == folder { return }
            folder = parent
        }
    }

    /// Creates the folder and its records folder, and writes or checks the manifest; when the
    /// manifest cannot be written, the folders it made for it are removed again.
    ///
    /// - Throws: ``CacheBenchError/usage(_:)`` when the folder holds another sweep's manifest;
    ///   ``CacheBenchError/output(_:)`` when it cannot be created or written.
    public func prepare(for manifest: SweepManifest) throws(CacheBenchError) {
        // Foundation's error for a path through a file reads "error 512": say what is wrong.
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder), !isFolder.boolValue {
            throw .output("\(directory): cannot write the sweep there: it is a file, not a folder")
        }
        // The records' folder is made once the manifest is known to be this sweep's: a refused
        // folder is left exactly as it was.
        @discardableResult
        func makeRecordsFolder() throws(CacheBenchError) -> String? {
            do throws(OutputError) { return try Folders.make(recordsPath) } catch {
                throw .output("\(directory): cannot write: \(error.reason)")
            }
        }
        let path = directory + "/" + SweepManifest.fileName
        let text = manifest.json.serialized(pretty: true) + "\n"
        // A manifest already there must be this sweep's; anything else there is left alone. Two
        // sweeps started at once into one new folder: one creates the manifest (a link, which
        // fails rather than replaces), the other then finds it and is refused if it differs.
        for _ in 0..<2 {
            if let data = FileManager.default.contents(atPath: path) {
                let existing = String(decoding: data, as: UTF8.self)
                if existing == text { try makeRecordsFolder(); return }
                guard let other = SweepManifest(text: existing) else {
                    throw .trace(TraceError(.malformed, file: path,
                                            reason: "not a sweep manifest, so this folder is not a sweep's: it is left as it is (move it, or write the sweep to another folder)"))
                }
                guard other == manifest else { throw .sweep(.folderHoldsAnotherSweep(directory, difference: other.difference(from: manifest))) }
                try makeRecordsFolder()
                return
            }
            let outermost = try makeRecordsFolder()
            do throws(OutputError) {
                let file = try AtomicFile(path: path)
                try file.write(text)
                if try file.commitIfAbsent() { return }
            } catch {
                // Nothing left behind: the folders made for this sweep go again.
                if let outermost { Self.removeEmptyFolders(from: recordsPath, upTo: outermost) }
                throw .output(error.description)
            }
        }
        throw .output("\(path): cannot write: it appeared and vanished while the sweep started")
    }

    /// Reads the manifest.
    ///
    /// - Throws: ``CacheBenchError/trace(_:)``: cannot open (66) when there is none, malformed
    ///   (65) when it is not a manifest.
    public func manifest() throws(CacheBenchError) -> SweepManifest {
        let path = directory + "/" + SweepManifest.fileName
        guard let data = FileManager.default.contents(atPath: path) else {
            let hint = TraceError.Hint.sweepRecordsFolder
            throw .trace(TraceError(.cannotOpen, file: path, reason: "cannot open: no sweep manifest here (is this \(hint.phrase)?)", hint: hint))
        }
        guard let manifest = SweepManifest(text: String(decoding: data, as: UTF8.self)) else {
            throw .trace(TraceError(.malformed, file: path, reason: "not a sweep manifest"))
        }
        return manifest
    }
}
