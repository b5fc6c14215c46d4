package dev.rdmasim.kernel.hw;

/** State with a current and a next value, committed by its owner at the end of each evaluated cycle. */
abstract class Register {
    final ClockedModule owner;
    final String name;

    Register(ClockedModule owner, String name) {
        this.owner = owner;
        this.name = name;
        owner.addRegister(this);
    }

    final void checkWritable() {
        owner.checkWritable(name);
    }

    abstract void commit();

    abstract void reset();
}
