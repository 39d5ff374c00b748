import ArgumentParser

struct MovieDataOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Insert or update each movie's markers in the player's MovieData.json.", valueName: "file"))
    var movieData: String?

    @Option(name: .long, help: "A single movie's id in MovieData.json (default: its file name without extension).")
    var id: String?

    @Option(name: .long, help: "The movie's title (kept when not given).")
    var title: String?

    @Option(name: .long, help: "The movie's description (kept when not given).")
    var description: String?

    @Option(name: .long, help: "The movie's poster image name (kept when not given).")
    var poster: String?

    /// Whether an id or details are given, which describe one movie.
    var describesOneMovie: Bool { id != nil || title != nil || description != nil || poster != nil }
}
