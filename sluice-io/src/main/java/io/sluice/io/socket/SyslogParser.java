package io.sluice.io.socket;

import io.sluice.core.Bytes;
import io.sluice.core.json.Decimal;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.nio.charset.StandardCharsets;

/**
 * Parses syslog lines, RFC 5424 and RFC 3164 (BSD), into metadata with Gollum's {@code consumer.Syslogd}
 * field names; the payload becomes the MSG part. Works on the bytes in place with pre-encoded keys: no
 * String, no allocation per line. A line that does not parse keeps its bytes as the payload and gets a
 * {@code syslog_error} field saying why, so nothing is lost and the failure is visible downstream.
 */
public final class SyslogParser {
    /** Which grammar to apply. */
    public enum Rfc {
        /** RFC 5424. */
        RFC5424,
        /** RFC 3164 (BSD syslog). */
        RFC3164,
        /** Per line: RFC 5424 when the version after the priority is "1", else RFC 3164. */
        AUTO
    }

    static final byte[] PRIORITY = key("priority");
    static final byte[] FACILITY = key("facility");
    static final byte[] SEVERITY = key("severity");
    static final byte[] TIMESTAMP = key("timestamp");
    static final byte[] HOSTNAME = key("hostname");
    static final byte[] APP_NAME = key("app_name");
    static final byte[] PROC_ID = key("proc_id");
    static final byte[] MSG_ID = key("msg_id");
    static final byte[] VERSION = key("version");
    static final byte[] STRUCTURED_DATA = key("structured_data");
    static final byte[] TAG = key("tag");
    static final byte[] ERROR = key("syslog_error");
    private static final byte[] ERR_PRI = key("missing or bad <PRI>");
    private static final byte[] ERR_HEADER = key("header does not follow RFC 5424");
    private static final byte[][] HEADER_KEYS = {TIMESTAMP, HOSTNAME, APP_NAME, PROC_ID, MSG_ID};
    private static final String MONTHS = "JanFebMarAprMayJunJulAugSepOctNovDec";

    private final Rfc rfc;
    private final byte[] digits = new byte[Decimal.MAX_LONG];
    private long errors;

    /** A parser for one grammar; one per thread (it keeps a scratch buffer). */
    public SyslogParser(Rfc rfc) {
        this.rfc = rfc;
    }

    private static byte[] key(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Parses {@code buf[off, off+len)} into {@code m}: metadata fields and the MSG as payload.
     *
     * @return false when the line did not parse (payload is then the whole line, flagged)
     */
    public boolean parse(byte[] buf, int off, int len, Message m) {
        int end = off + len;
        int pri = -1;
        int p = off;
        if (len > 2 && buf[off] == '<') {
            int v = 0;
            int i = off + 1;
            while (i < end && i < off + 5 && buf[i] >= '0' && buf[i] <= '9') {
                v = v * 10 + (buf[i] - '0');
                i++;
            }
            if (i > off + 1 && i < end && buf[i] == '>' && v <= 191) {
                pri = v;
                p = i + 1;
            }
        }
        if (pri < 0) {
            return fail(buf, off, len, m, ERR_PRI);
        }
        boolean v1 = p + 1 < end && buf[p] == '1' && buf[p + 1] == ' ';
        if (rfc == Rfc.RFC5424 || (rfc == Rfc.AUTO && v1)) {
            if (!v1 || !rfc5424(buf, p + 2, end, m)) {
                return fail(buf, off, len, m, ERR_HEADER);
            }
        } else {
            rfc3164(buf, p, end, m);
        }
        setPriority(m.metadata(), pri);
        return true;
    }

    /** Lines that did not parse so far. */
    public long errors() {
        return errors;
    }

    private boolean fail(byte[] buf, int off, int len, Message m, byte[] why) {
        errors++;
        m.setPayload(buf, off, len);
        m.metadata().set(ERROR, 0, ERROR.length, why, 0, why.length, Metadata.STRING);
        return false;
    }

    private void setPriority(Metadata md, int pri) {
        number(md, PRIORITY, pri);
        number(md, FACILITY, pri >> 3);
        number(md, SEVERITY, pri & 7);
    }

    private void number(Metadata md, byte[] key, int v) {
        md.set(key, 0, key.length, digits, 0, Decimal.putLong(digits, 0, v), Metadata.NUMBER);
    }

    /** HEADER fields after "&lt;PRI&gt;1 ": TIMESTAMP HOSTNAME APP-NAME PROCID MSGID SD [MSG]. */
    private boolean rfc5424(byte[] buf, int p, int end, Message m) {
        Metadata md = m.metadata();
        md.set(VERSION, 0, VERSION.length, buf, p - 2, 1, Metadata.NUMBER);
        for (byte[] key : HEADER_KEYS) {
            int sp = Bytes.indexOf(buf, p, end, (byte) ' ');
            if (sp < 0 || sp == p) {
                return false;
            }
            if (key == TIMESTAMP && !(sp - p == 1 && buf[p] == '-')) {
                long nanos = Rfc3339.parse(buf, p, sp);
                if (nanos == Long.MIN_VALUE) {
                    return false;
                }
                m.setTimestamp(nanos);
            }
            if (!(sp - p == 1 && buf[p] == '-')) {
                md.set(key, 0, key.length, buf, p, sp - p, Metadata.STRING);
            }
            p = sp + 1;
        }
        int sdEnd;
        if (p < end && buf[p] == '-') {
            sdEnd = p + 1;
        } else if (p < end && buf[p] == '[') {
            sdEnd = structuredDataEnd(buf, p, end);
            if (sdEnd < 0) {
                return false;
            }
            md.set(STRUCTURED_DATA, 0, STRUCTURED_DATA.length, buf, p, sdEnd - p, Metadata.STRING);
        } else {
            return false;
        }
        int msg = sdEnd < end && buf[sdEnd] == ' ' ? sdEnd + 1 : sdEnd;
        if (end - msg >= 3 && buf[msg] == (byte) 0xEF && buf[msg + 1] == (byte) 0xBB && buf[msg + 2] == (byte) 0xBF) {
            msg += 3;
        }
        m.setPayload(buf, msg, end - msg);
        return true;
    }

    /** End (exclusive) of one or more SD-ELEMENTs "[id k="v"]", honouring \" and \] in values; -1 if unclosed. */
    private static int structuredDataEnd(byte[] buf, int p, int end) {
        while (p < end && buf[p] == '[') {
            boolean quoted = false;
            p++;
            while (true) {
                if (p >= end) {
                    return -1;
                }
                byte b = buf[p];
                if (quoted && b == '\\') {
                    p += 2;
                    continue;
                }
                if (b == '"') {
                    quoted = !quoted;
                } else if (b == ']' && !quoted) {
                    p++;
                    break;
                }
                p++;
            }
        }
        return p;
    }

    /**
     * "Mmm dd hh:mm:ss HOSTNAME TAG[PID]: MSG", leniently: senders on a local socket often leave out the
     * timestamp or host, so each part is taken only when it is there, and what remains is the MSG.
     */
    private void rfc3164(byte[] buf, int p, int end, Message m) {
        Metadata md = m.metadata();
        if (isBsdTimestamp(buf, p, end)) {
            md.set(TIMESTAMP, 0, TIMESTAMP.length, buf, p, 15, Metadata.STRING);
            p += 16;
            int sp = Bytes.indexOf(buf, p, end, (byte) ' ');
            if (sp > p) {
                md.set(HOSTNAME, 0, HOSTNAME.length, buf, p, sp - p, Metadata.STRING);
                p = sp + 1;
            }
        }
        // TAG: up to 32 characters of [A-Za-z0-9_./-], then "[pid]" and/or ':'.
        int i = p;
        while (i < end && i - p < 48 && tagChar(buf[i])) {
            i++;
        }
        if (i > p && i < end && (buf[i] == ':' || buf[i] == '[')) {
            int tagEnd = i;
            if (buf[i] == '[') {
                int close = Bytes.indexOf(buf, i, Math.min(end, i + 24), (byte) ']');
                if (close > 0) {
                    md.set(PROC_ID, 0, PROC_ID.length, buf, i + 1, close - i - 1, Metadata.STRING);
                    i = close + 1;
                }
            }
            if (i < end && buf[i] == ':') {
                md.set(TAG, 0, TAG.length, buf, p, tagEnd - p, Metadata.STRING);
                p = i + 1;
                if (p < end && buf[p] == ' ') {
                    p++;
                }
            }
        }
        m.setPayload(buf, p, end - p);
    }

    private static boolean tagChar(byte b) {
        return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')
                || b == '_' || b == '-' || b == '.' || b == '/';
    }

    private static boolean isBsdTimestamp(byte[] b, int p, int end) {
        if (end - p < 16 || b[p + 3] != ' ' || b[p + 6] != ' ' || b[p + 9] != ':' || b[p + 12] != ':' || b[p + 15] != ' ') {
            return false;
        }
        boolean month = false;
        for (int i = 0; i < 36; i += 3) {
            if (MONTHS.charAt(i) == b[p] && MONTHS.charAt(i + 1) == b[p + 1] && MONTHS.charAt(i + 2) == b[p + 2]) {
                month = true;
                break;
            }
        }
        return month && digitOrSpace(b[p + 4]) && digit(b[p + 5]) && digit(b[p + 7]) && digit(b[p + 8])
                && digit(b[p + 10]) && digit(b[p + 11]) && digit(b[p + 13]) && digit(b[p + 14]);
    }

    private static boolean digit(byte b) {
        return b >= '0' && b <= '9';
    }

    private static boolean digitOrSpace(byte b) {
        return b == ' ' || digit(b);
    }

    /** RFC 3339 timestamps (as RFC 5424 uses them) to epoch nanoseconds, without java.time objects. */
    static final class Rfc3339 {
        private Rfc3339() {
        }

        /** Epoch nanos of "YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)", or Long.MIN_VALUE. */
        static long parse(byte[] b, int p, int end) {
            if (end - p < 20 || b[p + 4] != '-' || b[p + 7] != '-' || (b[p + 10] != 'T' && b[p + 10] != 't')
                    || b[p + 13] != ':' || b[p + 16] != ':') {
                return Long.MIN_VALUE;
            }
            int year = num(b, p, 4);
            int month = num(b, p + 5, 2);
            int day = num(b, p + 8, 2);
            int hour = num(b, p + 11, 2);
            int min = num(b, p + 14, 2);
            int sec = num(b, p + 17, 2);
            if (year < 0 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 || min < 0
                    || min > 59 || sec < 0 || sec > 60) {
                return Long.MIN_VALUE;
            }
            int i = p + 19;
            long nanos = 0;
            if (i < end && b[i] == '.') {
                i++;
                long scale = 100_000_000L;
                int start = i;
                while (i < end && digit(b[i])) {
                    nanos += (b[i] - '0') * scale;
                    scale /= 10;
                    i++;
                }
                if (i == start) {
                    return Long.MIN_VALUE;
                }
            }
            int offsetSec;
            if (i < end && (b[i] == 'Z' || b[i] == 'z') && i + 1 == end) {
                offsetSec = 0;
            } else if (end - i == 6 && (b[i] == '+' || b[i] == '-') && b[i + 3] == ':') {
                int oh = num(b, i + 1, 2);
                int om = num(b, i + 4, 2);
                if (oh < 0 || om < 0) {
                    return Long.MIN_VALUE;
                }
                offsetSec = (oh * 3600 + om * 60) * (b[i] == '-' ? -1 : 1);
            } else {
                return Long.MIN_VALUE;
            }
            long days = daysFromCivil(year, month, day);
            long secs = days * 86400 + hour * 3600L + min * 60L + sec - offsetSec;
            return secs * 1_000_000_000L + nanos;
        }

        private static int num(byte[] b, int p, int n) {
            int v = 0;
            for (int i = 0; i < n; i++) {
                int d = b[p + i] - '0';
                if (d < 0 || d > 9) {
                    return -1;
                }
                v = v * 10 + d;
            }
            return v;
        }

        /** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm). */
        private static long daysFromCivil(int y, int m, int d) {
            y -= m <= 2 ? 1 : 0;
            long era = (y >= 0 ? y : y - 399) / 400;
            long yoe = y - era * 400;
            long doy = (153L * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
            long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
            return era * 146097 + doe - 719468;
        }
    }
}
