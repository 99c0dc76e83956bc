SELECT date_trunc('minute', ts) AS minute, first(price) AS open, max(price) AS high,
       min(price) AS low, last(price) AS close, sum(quantity) AS volume
FROM trades
WHERE instrument = 'SYM052' AND ts >= '2026-11-17T08:00:00Z' AND ts < '2026-11-18T00:00:00Z'
GROUP BY minute
ORDER BY minute
