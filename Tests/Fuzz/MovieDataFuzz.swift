// libFuzzer harness over the MovieData parser: the bytes are a MovieData.json. Whatever parses must come back
// unchanged through the writer (`JSONWriter.prettyText` then `JSONParser.parse`), and whatever is valid MovieData
// must stay valid after an upsert and keep every movie. Anything else than a thrown error is a finding.
import FileFormats
import Labeling

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMovieData(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let document = try? JSONParser.parse(bytes) else { return 0 }
    let text = JSONWriter.prettyText(document)
    guard let reparsed = try? JSONParser.parse(Array(text.utf8)) else {
        fatalError("the writer's text does not parse:\n\(text)")
    }
    guard reparsed == document else { fatalError("the writer changed the document:\n\(text)") }

    guard var movies = try? MovieData(document: document, path: "MovieData.json") else { return 0 }
    let before = movies.movies.count
    movies.upsert(MovieUpdate(id: "7", markers: ["0": "start", "12": "end"], title: "Fuzz"))
    guard movies.movies.count == before || movies.movies.count == before + 1 else {
        fatalError("an upsert changed the number of movies from \(before) to \(movies.movies.count)")
    }
    guard let saved = try? JSONParser.parse(Array(movies.text.utf8)),
        let loaded = try? MovieData(document: saved, path: "MovieData.json")
    else {
        fatalError("an upserted MovieData does not load again:\n\(movies.text)")
    }
    guard loaded == movies else { fatalError("saving and loading changed the movies:\n\(movies.text)") }
    return 0
}
