/**
 * The HTTP/1.1 server layer the network inputs share ({@code consumer.HEC}, {@code consumer.OTLP}'s OTLP/HTTP, the
 * admin endpoint): binding a listener, counting connections against {@code MaxConnections}, and
 * {@link io.sluice.core.net.http.HttpConnection}, the per-connection handler that runs one request at a time and
 * holds pipelined ones back, so that each input keeps only its protocol (paths, auth, what a body becomes).
 */
package io.sluice.core.net.http;
