/// Network operations over URLSession.
public enum NetOps {}
