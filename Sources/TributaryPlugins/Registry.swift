import TributaryPluginKit
import TributaryCore

/// The built-in source, sink and processor types: one line per plugin. A new type adds its
/// folder and one line here; nothing else in the engine changes.
public enum BuiltinRegistry {
    public static let standard = Registry(
        sources: [
            JSONSource.descriptor,
            OpenWeatherMapSource.descriptor,
            OpenMeteoSource.descriptor,
            ExecSource.descriptor,
            YouTubeSearchSource.descriptor,
            DianpingSource.descriptor,
            YelpSource.descriptor,
            WebFeedSource.descriptor,
            HTMLSource.descriptor,
            ChannelsSource.descriptor,
        ],
        sinks: [
            StdoutSink.descriptor,
            JSONLSink.descriptor,
            RSSSink.descriptor,
            AtomSink.descriptor,
            JSONFeedSink.descriptor,
            PostgresSink.descriptor,
            SQLiteSink.descriptor,
            WebhookSink.descriptor,
            ExecSink.descriptor,
            NATSSink.descriptor,
        ],
        processors: [
            FilterProcessor.descriptor,
            JQProcessor.descriptor,
            ExecProcessor.descriptor,
            FullTextProcessor.descriptor,
        ],
        formats: [OPMLFormat.format],
        preparations: [ExecSource.claimAllChildren],
        templates: JQTemplate.compiler
    )
}
