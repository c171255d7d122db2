package dev.tine.agent.instrument;

/** The executor families the agent knows, by {@link Family#id}. Index 0 is unused. */
final class Families {
  private Families() {}

  static final Family[] ALL = {
    null,
    new TomcatFamily(),
    new JettyFamily(),
    new UndertowFamily(),
    new NettyFamily(),
    new VirtualThreadFamily()
  };

  static Family of(int id) {
    return id > 0 && id < ALL.length ? ALL[id] : null;
  }
}
