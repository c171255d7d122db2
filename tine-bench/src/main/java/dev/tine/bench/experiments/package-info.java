/**
 * The experiments of the source documents: the fork/join tuning study, the Solaris threading
 * document, Lea's paper (GC and data width), the thread-pool blog post and Pepperdine's article.
 */
package dev.tine.bench.experiments;
