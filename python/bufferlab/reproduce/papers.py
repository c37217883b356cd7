"""The four seed papers, cited by author and year."""

from .item import Paper

BRAUD = Paper("braud", "Braud, Heusse & Duda (2014)",
              "TCP over Large Buffers: When Adding Traffic Improves Latency", "ITC 26, Karlskrona")
CARDOZO = Paper("cardozo", "Cardozo, Vieira, Ziviani & Couto da Silva (2015?)",
                "On the Interoperability of Bufferbloat Solutions",
                "the text carries no date; its latest reference is from 2014")
GORINSKY = Paper("gorinsky", "Gorinsky, Kantawala & Turner (2005)",
                 "Link Buffer Sizing: A New Look at the Old Problem", "IEEE ISCC 2005")
JABEEN = Paper("jabeen", "Jabeen, Zafar, Qazi & Uzmi (2011?)",
               "SplitBuff: Improving the Interaction of Heterogeneous RTT Flows on the Internet",
               "the text carries no date; its latest reference is from 2010")
KLEINROCK = Paper("theory", "Kleinrock (1975)", "Queueing Systems, vol. 1", "§5.6, Pollaczek–Khinchine")
