package io.sluice.core.config;

/** The plugin families of a pipeline, as in Gollum. */
public enum PluginKind {
    /** Reads events from outside and publishes them to streams. */
    CONSUMER,
    /** Subscribes to streams and delivers events outside. */
    PRODUCER,
    /** Decides how a stream fans out to its producers. */
    ROUTER,
    /** A formatter or filter hung on a consumer, router or producer. */
    MODULATOR
}
