package io.sluice.core.format;

import io.sluice.core.json.JsonFields;
import io.sluice.core.message.Metadata;

/** Maps scanner kinds to metadata kinds: objects and arrays both become {@link Metadata#JSON}. */
final class Kinds {
    private Kinds() {
    }

    static byte toMetadata(byte jsonKind) {
        return jsonKind >= JsonFields.OBJECT ? Metadata.JSON : jsonKind;
    }
}
