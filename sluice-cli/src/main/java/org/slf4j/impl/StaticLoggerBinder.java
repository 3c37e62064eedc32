package org.slf4j.impl;

import io.sluice.cli.ThirdPartyLog;
import org.slf4j.ILoggerFactory;
import org.slf4j.spi.LoggerFactoryBinder;

/**
 * The SLF4J 1.7 binding, found by name: libraries that log through SLF4J (the Kafka client) write into Sluice's
 * own log instead of SLF4J printing its "NOP logger" warning and dropping everything.
 */
public final class StaticLoggerBinder implements LoggerFactoryBinder {
    /** SLF4J's API version this binding was written against. */
    public static final String REQUESTED_API_VERSION = "1.7.36";
    private static final StaticLoggerBinder SINGLETON = new StaticLoggerBinder();

    private StaticLoggerBinder() {
    }

    /** SLF4J calls this to find the binding. */
    public static StaticLoggerBinder getSingleton() {
        return SINGLETON;
    }

    @Override
    public ILoggerFactory getLoggerFactory() {
        return ThirdPartyLog::new;
    }

    @Override
    public String getLoggerFactoryClassStr() {
        return ThirdPartyLog.class.getName();
    }
}
