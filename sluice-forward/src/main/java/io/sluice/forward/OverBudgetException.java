package io.sluice.forward;

/**
 * Something a peer sent would need more memory than the memory budget could ever grant (beyond what the connection
 * already holds): it is refused as too large, never waited for.
 */
public final class OverBudgetException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public OverBudgetException(String message) {
        super(message, null, false, false);
    }
}
