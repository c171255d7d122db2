package dev.tine.spark;

import java.io.IOException;
import java.io.NotSerializableException;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;

/**
 * Checks that what crosses JVMs can be serialized, before Spark tries: Spark's own failure comes
 * after the job has started (a task that cannot be serialized, or a result that cannot, retried
 * until the job aborts), with the class buried in a stack trace.
 */
final class Shipping {
  private Shipping() {}

  /**
   * Serializes {@code value} into nothing; throws {@link IllegalArgumentException} naming the class
   * that cannot be serialized (the offending field's class, which may be deep inside {@code
   * value}).
   */
  static void requireSerializable(Object value, String what) {
    try (ObjectOutputStream out = new ObjectOutputStream(OutputStream.nullOutputStream())) {
      out.writeObject(value);
    } catch (NotSerializableException e) {
      throw new IllegalArgumentException(
          what
              + " cannot be sent between JVMs: class "
              + e.getMessage()
              + " is not Serializable"
              + (value == null || value.getClass().getName().equals(e.getMessage())
                  ? ""
                  : " (reached from " + value.getClass().getName() + ")"),
          e);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          what
              + " ("
              + (value == null ? "null" : value.getClass().getName())
              + ") cannot be serialized: "
              + e,
          e);
    }
  }

  /**
   * Checks the result type {@code R} that {@code problem}'s class declares for {@link Divisible}
   * (when it names a class): a final class that is not {@link Serializable} fails here, on the
   * driver, before any piece runs. Any other type (a type variable, an interface, a class whose
   * subclasses may be serializable, {@code Object}) is checked on the executors, result by result.
   */
  static void requireSerializableResultType(Divisible<?, ?> problem) {
    Type r = resultType(problem.getClass());
    if (r instanceof ParameterizedType p) {
      r = p.getRawType();
    }
    if (r instanceof Class<?> c
        && !c.isInterface()
        && !c.isPrimitive()
        && Modifier.isFinal(c.getModifiers())
        && !Serializable.class.isAssignableFrom(c)) {
      throw new IllegalArgumentException(
          "the result type of "
              + problem.getClass().getName()
              + " cannot be sent between JVMs: class "
              + c.getName()
              + " is not Serializable");
    }
  }

  private static Type resultType(Class<?> c) {
    for (Class<?> k = c; k != null; k = k.getSuperclass()) {
      for (Type t : k.getGenericInterfaces()) {
        if (t instanceof ParameterizedType p && p.getRawType() == Divisible.class) {
          return p.getActualTypeArguments()[1];
        }
      }
    }
    return null;
  }
}
