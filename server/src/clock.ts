/** The time now; injected so that tests can move it (the rate window, the feed window). */
export type Clock = () => Date;
