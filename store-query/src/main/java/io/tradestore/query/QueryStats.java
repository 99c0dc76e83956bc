package io.tradestore.query;

/**
 * What a query did.
 *
 * @param elapsedMicros    wall time from start to result.
 * @param rowsScanned      rows the kernels looked at.
 * @param rowsMatched      rows that passed the filter and time range.
 * @param segmentsScanned  segments read.
 * @param segmentsSkipped  segments skipped by time range or zone maps.
 * @param blocksSkipped    blocks skipped by zone maps inside scanned segments.
 * @param indexedSegments  segments whose symbol filters were answered from bitmap indexes.
 * @param rowsSummarized   matched rows aggregated from value summaries without reading them (included in rowsMatched).
 */
public record QueryStats(long elapsedMicros, long rowsScanned, long rowsMatched, long segmentsScanned,
    long segmentsSkipped,
                         long blocksSkipped, long indexedSegments, long rowsSummarized) {
}
