package io.sluice.core.format;

/** Checks IP address literals the way Go's {@code net.ParseIP} accepts them, without any DNS lookup. */
final class IpLiteral {
    private IpLiteral() {
    }

    static boolean isValid(String s) {
        return s.indexOf(':') >= 0 ? isV6(s) : isV4(s);
    }

    static boolean isV4(String s) {
        String[] parts = s.split("\\.", -1);
        if (parts.length != 4) {
            return false;
        }
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 3 || (p.length() > 1 && p.charAt(0) == '0') || !p.chars().allMatch(c -> c >= '0' && c <= '9')
                    || Integer.parseInt(p) > 255) {
                return false;
            }
        }
        return true;
    }

    private static boolean isV6(String s) {
        int dbl = s.indexOf("::");
        if (dbl >= 0 && s.indexOf("::", dbl + 1) >= 0) {
            return false;
        }
        String head = dbl >= 0 ? s.substring(0, dbl) : s;
        String tail = dbl >= 0 ? s.substring(dbl + 2) : "";
        int groups = count(head, tail.isEmpty()) + (dbl >= 0 ? count(tail, true) : 0);
        if (groups < 0) {
            return false;
        }
        return dbl >= 0 ? groups < 8 : groups == 8;
    }

    /** Groups in a colon-separated run (an embedded IPv4 counts two), or -1 if malformed. */
    private static int count(String run, boolean last) {
        if (run.isEmpty()) {
            return 0;
        }
        String[] parts = run.split(":", -1);
        int n = 0;
        for (int i = 0; i < parts.length; i++) {
            String p = parts[i];
            if (i == parts.length - 1 && last && p.indexOf('.') >= 0) {
                if (!isV4(p)) {
                    return -1;
                }
                n += 2;
            } else if (p.isEmpty() || p.length() > 4 || !p.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                return -1;
            } else {
                n++;
            }
        }
        return n;
    }
}
