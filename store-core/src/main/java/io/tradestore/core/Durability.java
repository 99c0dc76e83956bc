package io.tradestore.core;

/** What a commit waits for before it publishes rows. */
public enum Durability {
    /** Rows are in the page cache when published: they survive the death of the process, not of the machine. */
    NONE,
    /** Data, zone maps and dictionaries are msync'ed before the commit is published: commits survive power loss. */
    SYNC
}
