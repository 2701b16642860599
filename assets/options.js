import { mount } from './mount.js';

mount('options', 'mount_options');
