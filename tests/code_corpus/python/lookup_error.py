# expect: LookupError
import codecs
codecs.lookup('no-such-codec')
