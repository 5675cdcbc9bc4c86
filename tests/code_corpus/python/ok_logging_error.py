# expect: success
import logging
logging.error('Segmentation fault (core dumped)')
logging.critical('OutOfMemory')
