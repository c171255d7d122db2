/** Tine: a work-stealing fork/join runtime. Only {@code dev.tine} is API. */
module dev.tine {
  requires java.management;

  exports dev.tine;
}
