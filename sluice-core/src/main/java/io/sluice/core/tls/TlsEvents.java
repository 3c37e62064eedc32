package io.sluice.core.tls;

import io.sluice.core.pipeline.Log;

/**
 * Where certificate reloads are reported: the plugin's log once it runs ({@link TlsSettings#logTo}), stderr before.
 * A failed reload is a WARN at most every few seconds per file (a half-copied file fails until the copy ends).
 */
final class TlsEvents {
    private volatile Log log = Log.stderr();
    private volatile String id = "tls";

    void logTo(Log log, String id) {
        this.log = log;
        this.id = id;
    }

    void reloaded(String file) {
        log.info(id + ": TLS files reloaded (" + file + "); new connections use them");
    }

    void reloadFailed(String file, Exception e) {
        log.limited(Log.WARNING, id + ":tls-reload", id + ": TLS files changed but cannot be read (" + file + ": "
                + e.getMessage() + "); still serving the previous ones");
    }
}
