/** Tine: a work-stealing fork/join runtime. Only {@code dev.tine} is API. */
module dev.tine {
  requires transitive java.management; // WorkStealingPool.mxBeanName() returns an ObjectName

  exports dev.tine;
}
