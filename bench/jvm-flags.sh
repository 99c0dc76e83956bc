# Sourced by the bench scripts: the JVM flags chronicle-core needs on JDK 17 and 25 (the first is there so that JDK 17
# ignores the flags it does not know), with its analytics off. One list, so the harnesses run as bin/tradestore does.
CHRONICLE_FLAGS=(-XX:+IgnoreUnrecognizedVMOptions
  --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-exports=java.base/sun.nio.ch=ALL-UNNAMED
  --enable-native-access=ALL-UNNAMED
  --sun-misc-unsafe-memory-access=allow
  -Dchronicle.analytics.disable=true)
